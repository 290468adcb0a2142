// File: tiktoken/in_place.hpp (private to tokenlab_pretrained)
// read_tiktoken over a buffer the reader may rewrite, as load() reads a file
// (file_buffer.hpp): npm tiktoken's encoder JSON is parsed in situ there,
// where read_tiktoken first copies it (2.3 MB for o200k, a tenth of its
// load in fresh pages on a virtual machine).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "file_buffer.hpp"
#include "tokenlab/pretrained/pretrained_tokenizer.hpp"

namespace tokenlab::tiktoken_detail {

/// A tiktoken file being loaded (PretrainedTokenizer::load): file open, its
/// first read_so_far bytes read. When the cache knows the file by its stamp
/// (compiled/file_stamp.hpp) and has its entry, nothing more is read;
/// otherwise the rest, which it may rewrite (npm tiktoken's encoder JSON is
/// parsed in situ).
PretrainedPipeline read_tiktoken_file(pretrained_detail::FileBuffer& file, std::size_t read_so_far,
                                      const std::string& source, std::string_view encoding,
                                      unsigned threads, const ModelCache& cache);

}  // namespace tokenlab::tiktoken_detail
