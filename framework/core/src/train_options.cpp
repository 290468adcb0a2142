#include "tokenlab/train_options.hpp"

#include <thread>

#include "tokenlab/error.hpp"

namespace tokenlab {

void validate(const TrainOptions& options) {
  if (options.vocab_size == 0) throw Error("vocab_size must be at least 1");
  if (!(options.character_coverage > 0.0 && options.character_coverage <= 1.0))
    throw Error("character_coverage must be in (0, 1], got " +
                std::to_string(options.character_coverage));
  if (options.special_tokens) {
    const auto& specials = *options.special_tokens;
    for (std::size_t i = 0; i < specials.size(); ++i) {
      if (specials[i].empty()) throw Error("special tokens must not be empty");
      for (std::size_t j = 0; j < i; ++j)
        if (specials[j] == specials[i])
          throw Error("special token '" + specials[i] + "' is listed twice");
    }
  }
}

unsigned resolve_threads(unsigned requested) noexcept {
  if (requested > 0) return requested;
  const unsigned hw = std::thread::hardware_concurrency();
  return hw > 0 ? hw : 1;
}

}  // namespace tokenlab
