#include "tokenlab/error.hpp"

namespace tokenlab {

Error::Error(const std::string& message) : std::runtime_error(message) {}
Error::~Error() = default;

}  // namespace tokenlab
