// libFuzzer target: any bytes through PretrainedTokenizer::from_bytes as every
// format (tokenizer.json, tiktoken, SentencePiece .model, and auto detection),
// then encode, decode and display with whatever loads.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "pretrained_fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  (void)tokenlab::fuzz::load_pretrained_bytes(bytes);  // a tokenlab::Error is caught inside
  return 0;
}
