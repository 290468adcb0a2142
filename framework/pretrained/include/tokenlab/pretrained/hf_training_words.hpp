// File: pretrained/hf_training_words.hpp
// The words Hugging Face's Tokenizer::train_from_files gives its trainer, which
// `train --like` trains on: each file read as lines that keep their "\n" (and
// "\r"), each line through the tokenizer's added tokens, normalizers and
// pre-tokenizers, every resulting piece counted, the added tokens' contents
// included (HF's get_splits returns them too).
//
//   auto words = count_hf_training_words(tokenizer, {"corpus.txt"}, 2);
//   HfBpeResult result = train_hf_bpe(words, settings);
#pragma once
#include <string>
#include <vector>

#include "tokenlab/pretrained/export.hpp"
#include "tokenlab/pretrained/hf_trainers.hpp"
#include "tokenlab/pretrained/pretrained_tokenizer.hpp"

namespace tokenlab {

/// The counted pieces of files, in no particular order (the trainers' results do
/// not depend on it), the same whatever the thread count (0 = all cores): exactly
/// what running tokenizer.for_each_piece on every line would count, also where a
/// shortcut skips the pipeline (words of printable ASCII under Whitespace and
/// BERT's pipelines). Error naming the file and line of invalid UTF-8 (HF refuses
/// such a file too) or a file that cannot be read.
TOKENLAB_PRETRAINED_API std::vector<HfWordCount> count_hf_training_words(
    const PretrainedTokenizer& tokenizer, const std::vector<std::string>& files, unsigned threads);

}  // namespace tokenlab
