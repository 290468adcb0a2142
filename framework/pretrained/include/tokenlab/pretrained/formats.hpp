// File: pretrained/formats.hpp
// The readers of real models' tokenizer files, one per format, and the
// detection that picks one from a file's content.
//
// Each reader takes the whole file (read once, bounded by kMaxPretrainedFileBytes)
// and its name for messages, and either returns a complete pipeline or throws
// Error naming the file and the place: a JSON path ("model.merges[17]"), a
// line, or a byte offset.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "tokenlab/pretrained/export.hpp"
#include "tokenlab/pretrained/model_cache.hpp"
#include "tokenlab/pretrained/pretrained_tokenizer.hpp"

namespace tokenlab {

/// Larger files are refused before they are read (Gemma 3's tokenizer.json is 33 MB).
inline constexpr std::uint64_t kMaxPretrainedFileBytes = std::uint64_t{1} << 30;

/// "tokenizer.json", "tiktoken" or "sentencepiece", from the first bytes of a
/// file (and its name, for tiktoken rank files); "" when none fits.
TOKENLAB_PRETRAINED_API std::string detect_pretrained_format(std::string_view content);

/// The whole of a tokenizer file, read once; throws Error naming the file when it
/// is a directory, unreadable, short, or larger than kMaxPretrainedFileBytes.
TOKENLAB_PRETRAINED_API std::string read_pretrained_file(const std::filesystem::path& path);

/// The format string that reads content as the user asked: format is "auto",
/// "tokenizer.json", "tiktoken", "tiktoken:ENCODING" or "sentencepiece". A
/// tiktoken rank file carries neither its pattern nor its special tokens, so
/// without ":ENCODING" its file name says the encoding ("cl100k_base.tiktoken").
/// Returns "" when format is "auto" and the content fits no format.
TOKENLAB_PRETRAINED_API std::string resolve_pretrained_format(std::string_view content,
                                                              const std::string& file_name,
                                                              std::string_view format);

/// Hugging Face tokenizers' tokenizer.json. With threads >= 2, a second thread
/// takes up the vocabulary and the merges while the rest is parsed, and a BPE
/// model's tables are built before it returns, on two threads; the pipeline and
/// every error are the same as with one. A large byte-level BPE file goes
/// through cache (model_cache.hpp): the same pipeline, read back.
TOKENLAB_PRETRAINED_API PretrainedPipeline
read_tokenizer_json(std::string content, const std::string& source, unsigned threads = 1,
                    const ModelCache& cache = ModelCache::from_environment());

/// A tiktoken rank file ("base64 rank" per line) with the pattern and special
/// tokens of a named encoding (gpt2, r50k_base, p50k_base, p50k_edit,
/// cl100k_base, o200k_base); or npm tiktoken's encoder JSON, which carries them
/// (then encoding may be empty). With threads >= 2, a second thread inserts the
/// tokens while the next are decoded; the pipeline and every error are the
/// same as with one.
/// A file of at least a MiB goes through cache (model_cache.hpp), keyed by its
/// bytes and the encoding: the same pipeline, read back.
TOKENLAB_PRETRAINED_API PretrainedPipeline
read_tiktoken(std::string_view content, const std::string& source, std::string_view encoding,
              unsigned threads = 1, const ModelCache& cache = ModelCache::from_environment());

/// A SentencePiece ModelProto (.model).
TOKENLAB_PRETRAINED_API PretrainedPipeline read_sentencepiece(std::string_view content,
                                                              const std::string& source);

}  // namespace tokenlab
