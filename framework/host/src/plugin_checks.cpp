#include "tokenlab/plugin_checks.hpp"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>
#include <typeinfo>

#include "tokenlab/error.hpp"
#include "tokenlab/segmenter.hpp"

namespace tokenlab {

std::string describe_exception(const std::exception& e) {
  const char* mangled = typeid(e).name();
  int status = 0;
  const std::unique_ptr<char, void (*)(void*)> demangled(
      abi::__cxa_demangle(mangled, nullptr, nullptr, &status), std::free);
  const std::string type = status == 0 && demangled ? demangled.get() : mangled;
  return type + ": " + e.what();
}

void check_vocabulary_size(const Segmenter& segmenter, std::size_t requested) {
  const std::size_t size = segmenter.vocabulary().size();
  if (size <= requested) return;
  throw Error("plugin '" + segmenter.name() + "' made a vocabulary of " + std::to_string(size) +
              " entries, more than the " + std::to_string(requested) +
              " requested (vocab_size, special tokens included): refused; a plugin must stop "
              "at vocab_size (tokenlab check-plugin checks it)");
}

}  // namespace tokenlab
