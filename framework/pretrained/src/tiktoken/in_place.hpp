// File: tiktoken/in_place.hpp (private to tokenlab_pretrained)
// read_tiktoken over a buffer the reader may rewrite, as load() reads a file
// (file_buffer.hpp): npm tiktoken's encoder JSON is parsed in situ there,
// where read_tiktoken first copies it (2.3 MB for o200k, a tenth of its
// load in fresh pages on a virtual machine).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "tokenlab/pretrained/pretrained_tokenizer.hpp"

namespace tokenlab::tiktoken_detail {

/// read_tiktoken over text[0, size), which it may rewrite; text[size] must be
/// '\0'.
PretrainedPipeline read_tiktoken_in_place(char* text, std::size_t size, const std::string& source,
                                          std::string_view encoding, unsigned threads,
                                          const ModelCache& cache);

}  // namespace tokenlab::tiktoken_detail
