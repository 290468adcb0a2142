#include "tokenlab/error.hpp"

#include "tokenlab/segmenter.hpp"
#include "tokenlab/training_observer.hpp"

namespace tokenlab {

Error::Error(const std::string& message) : std::runtime_error(message) {}
Error::~Error() = default;

}  // namespace tokenlab
