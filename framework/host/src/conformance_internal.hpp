// File: conformance_internal.hpp
// What the conformance checks share, private to the host library: the corpora,
// the state one run builds up, the helpers that encode and describe, and the
// checks themselves, one file per concern:
//
//   conformance_training.cpp     identity, training, vocab_size, max_steps, options
//   conformance_encoding.cpp     the encodings of one model: appends, ids, round trip
//   conformance_models.cpp       save and load, two models in one process
//   conformance_concurrency.cpp  many threads on one model
//
// Each check is `bool check(Run&, std::string& detail)`: it returns whether it
// passed and leaves in detail what was expected and what happened.
#pragma once

#include <cstddef>
#include <exception>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "tokenlab/segmenter.hpp"
#include "tokenlab/train_options.hpp"
#include "tokenlab/types.hpp"
#include "tokenlab/word_counts.hpp"

namespace tokenlab {
class PluginRegistry;
}

namespace tokenlab::conformance {

/// A check's failure found deep inside a helper (an encode that threw, or did not
/// append): the suite shows its message as the detail, as it is.
class CheckFailure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The small multilingual corpus every check trains on: twelve lines, three times.
[[nodiscard]] WordCounts corpus_counts();
/// Its English lines only: a second model, with another vocabulary.
[[nodiscard]] WordCounts english_counts();
/// Six frequent words and 300 rare ones over the same ten letters.
[[nodiscard]] WordCounts frequent_word_counts();
/// Words the training corpus never saw.
[[nodiscard]] const std::vector<std::string>& unseen_words();
[[nodiscard]] std::vector<std::string> words_of(const WordCounts& counts);

/// The word as a message shows it: quoted, cut after 40 bytes (at a character).
[[nodiscard]] std::string quote(std::string_view word);
[[nodiscard]] std::string show_ids(const std::vector<TokenId>& ids);
[[nodiscard]] bool contains_id(const std::vector<TokenId>& ids, std::optional<TokenId> id);
/// The first id out of range in any of the encodings, described, or "".
[[nodiscard]] std::string first_bad_id(const std::vector<std::vector<TokenId>>& encodings,
                                       const std::vector<std::string>& words, std::size_t size);
[[nodiscard]] std::string saved_bytes(const Segmenter& s);

/// The ids of one word. Throws CheckFailure naming the word when encode() throws
/// (with the exception's type and message) or does not append to its output.
[[nodiscard]] std::vector<TokenId> encode_one(const Segmenter& s, std::string_view word);
[[nodiscard]] std::vector<std::vector<TokenId>> encode_all(const Segmenter& s,
                                                           const std::vector<std::string>& words);

/// fn() on a thread of its own, so that no per-thread state of an earlier check
/// (a thread_local cache) takes part; its exception is rethrown here.
template <class Fn>
auto on_fresh_thread(Fn&& fn) -> decltype(fn()) {
  std::optional<decltype(fn())> result;
  std::exception_ptr error;
  std::thread([&] {
    try {
      result.emplace(fn());
    } catch (...) {
      error = std::current_exception();
    }
  }).join();
  if (error) std::rethrow_exception(error);
  return std::move(*result);
}

/// What one run builds up: the checks read it and the first ones fill it.
struct Run {
  Run(const PluginRegistry& registry, std::string plugin_name);

  const PluginRegistry& registry;
  const std::string plugin;
  const WordCounts counts;
  const std::vector<std::string> words;
  TrainOptions options;                         // vocab_size 300, threads 1
  std::unique_ptr<Segmenter> segmenter;         // trained on counts with options
  std::vector<std::vector<TokenId>> encodings;  // of words
  std::vector<std::vector<TokenId>> unseen;     // of unseen_words()
  std::vector<std::string> notes;               // what the training said (on_message)
  bool ids_in_range = false;
  std::string warning;  // for the running check's result; the suite takes it

  /// A new segmenter of the plugin (CheckFailure when the factory gives none).
  [[nodiscard]] std::unique_ptr<Segmenter> fresh() const;
  [[nodiscard]] const Vocabulary& vocabulary() const { return segmenter->vocabulary(); }
  [[nodiscard]] std::optional<TokenId> unknown() const { return vocabulary().unknown_id(); }
};

using Check = bool (*)(Run&, std::string&);

// conformance_training.cpp
bool creates(Run& run, std::string& d);
bool descriptor_matches(Run& run, std::string& d);
bool trains(Run& run, std::string& d);
bool deterministic_training(Run& run, std::string& d);
bool honours_vocab_size(Run& run, std::string& d);
bool honours_max_steps(Run& run, std::string& d);
bool uses_its_pieces(Run& run, std::string& d);
bool unknown_option(Run& run, std::string& d);

// conformance_encoding.cpp
bool encodes(Run& run, std::string& d);
bool ids_in_range(Run& run, std::string& d);
bool ids_decode_to_own_piece(Run& run, std::string& d);
bool round_trips(Run& run, std::string& d);
bool unseen_encoded(Run& run, std::string& d);
bool empty_word(Run& run, std::string& d);
bool long_word(Run& run, std::string& d);

// conformance_models.cpp
bool save_load(Run& run, std::string& d);
bool rejects_garbage(Run& run, std::string& d);
bool two_models(Run& run, std::string& d);

// conformance_concurrency.cpp
bool concurrent_encoding(Run& run, std::string& d);

}  // namespace tokenlab::conformance
