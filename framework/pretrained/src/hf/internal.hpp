// Hugging Face tokenizers' tokenizer.json: what the files of this directory
// share. Each part names the module of huggingface/tokenizers (tokenizers/src/)
// that it reproduces, and lives in the file of this directory named after it:
//
//   models          models/bpe, wordpiece, wordlevel, unigram (bpe_model.cpp,
//                   wordpiece_model.cpp, wordlevel_model.cpp, unigram_model.cpp)
//   normalizers     normalizers/*.rs (normalizers.cpp)
//   pre-tokenizers  pre_tokenizers/*.rs (pre_tokenizers.cpp)
//   decoders        decoders/*.rs (decoders.cpp)
//   added tokens    tokenizer/added_vocabulary.rs (added_tokens.cpp)
//   numbers         serde_json's parse of the file's numbers (serde_numbers.hpp)
//   reader          tokenizer/serialization.rs: the file read into a pipeline
//                   (reader.cpp; each component's JSON in reader_components.cpp)
//   writer          tokenlab's export (writer.cpp)
//
// This header holds the component readers that reader.cpp builds the pipeline
// with. Internal to tokenlab_pretrained: nothing here is installed.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "compiled/compiled_file.hpp"
#include "compiled/file_stamp.hpp"
#include "file_buffer.hpp"
#include "hf/compiled_json.hpp"
#include "hf/list_prefetch.hpp"
#include "hf/merge_ids.hpp"
#include "hf/streamed_lists.hpp"
#include "json_value.hpp"
#include "tokenlab/pretrained/components.hpp"
#include "tokenlab/pretrained/pretrained_tokenizer.hpp"

namespace tokenlab::hf_detail {

// read_tokenizer_json over text[0, size), which it rewrites (the in-situ parse);
// text[size] must be '\0'. PretrainedTokenizer::load reads the file into such
// a buffer (file_buffer.hpp) rather than a std::string.
// known: what a load from a file found before reading it (read_tokenizer_json_file):
// its stamp, which is remembered with the digest once the file is digested,
// and, when the stamp recalled a digest whose entry was read, both (the file
// is then not digested, and the bytes of the lists the entry stands for may
// never have been read).
struct KnownFile {
  compiled::FileStamp stamp;
  std::int64_t stat_time_ns = 0;  // FileBuffer::stat_time_ns of that stamp
  std::optional<compiled::Digest> digest;
  std::optional<CompiledJson> compiled;
};
PretrainedPipeline read_tokenizer_json_in_place(char* text, std::size_t size,
                                                const std::string& source, unsigned threads,
                                                const ModelCache& cache,
                                                KnownFile* known = nullptr);

// A tokenizer.json being loaded (PretrainedTokenizer::load): file open, its
// first read_so_far bytes read. Reads the rest and the pipeline; when the
// cache remembers this file unchanged (compiled/file_stamp.hpp), the file is
// not digested and its two lists, which the entry holds, are not read.
PretrainedPipeline read_tokenizer_json_file(pretrained_detail::FileBuffer& file,
                                            std::size_t read_so_far, const std::string& source,
                                            unsigned threads, const ModelCache& cache);

// The normalizer, pre_tokenizer and decoder members, a Sequence flattened, each
// component checked: an unknown type or an option that would change the ids is
// an Error naming its JSON path.
void add_normalizers(const json::Value& v, std::vector<std::unique_ptr<NormalizerStep>>& out);
void add_pre_tokenizers(const json::Value& v, std::vector<std::unique_ptr<PreTokenizerStep>>& out);
void add_decoders(const json::Value& v, std::vector<std::unique_ptr<DecoderStep>>& out);

// The digits of each Unigram score as the file spells them (model.vocab[i][1]),
// from a second parse of a copy; see reader_components.cpp. The export reader's;
// read_tokenizer_json notes them as it parses instead (StreamedLists).
std::vector<std::string> unigram_score_digits(std::string copy);

// The model member: p.tokens and p.model. streamed: what the parser took from
// the stream (ListDivertingHandler): model.vocab and model.merges when it took
// them (the document then holds an empty object and array in their place; the
// merges are moved out), and a Unigram vocabulary's score digits. bpe, when
// given, receives a BPE model's merges and options instead of p.model (left
// null): the caller reads them (make_hf_byte_level) and then makes the model
// with make_bpe_model, which keeps them without a copy.
struct BpeParts {
  SharedMerges merges;
  BpeModelOptions options;
  std::string where;  // the file and the model's JSON path, for make_bpe_model
  bool read = false;  // the model was BPE: p.model is the caller's to make
};
/// prefetched: what a second thread built from the streamed lists while the
/// file was parsed (list_prefetch.hpp), taken where it is exactly what this
/// would build; null or empty: all of it here.
/// compiled: the file's entry in the compiled-model cache (a BPE model's
/// tokens and merges, which the parse stepped over), moved from.
void read_model(const json::Value& model, PretrainedPipeline& p, const std::string& file,
                StreamedLists& streamed, BpeParts* bpe = nullptr,
                ListPrefetch::Result* prefetched = nullptr, CompiledJson* compiled = nullptr);

// The pattern of a pre_tokenizer member that a fused byte-level encoder can run
// in its place: a Split by a regex (kept as pieces: Isolated, or Removed
// inverted) then ByteLevel without prefix space or regex, or ByteLevel alone with
// its GPT-2 regex and no prefix space. Empty otherwise (the pattern is then
// still to be checked against the presets).
std::string byte_level_pattern(const json::Value& pre_tokenizer);

}  // namespace tokenlab::hf_detail
