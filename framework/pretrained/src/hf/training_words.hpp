// The words HF's Tokenizer::train_from_files gives its trainer: each file read
// as lines that keep their "\n" (and "\r"), each line through the tokenizer's
// added tokens, normalizers and pre-tokenizers, every resulting piece counted,
// the added tokens' contents included (HF's get_splits returns them too).
#pragma once
#include <string>
#include <vector>

#include "tokenlab/pretrained/hf_trainers.hpp"
#include "tokenlab/pretrained/pretrained_tokenizer.hpp"

namespace tokenlab::hf {

/// The counted pieces of files, in no particular order (the trainers' results
/// do not depend on it). Error naming the file and line of invalid UTF-8 (HF
/// refuses such a file too) or a file that cannot be read.
std::vector<HfWordCount> count_training_words(const PretrainedTokenizer& tokenizer,
                                              const std::vector<std::string>& files,
                                              unsigned threads);

}  // namespace tokenlab::hf
