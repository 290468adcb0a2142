// The checks on models as objects: save and load, load of garbage, and two models
// of one plugin alive in one process, each encoding with its own vocabulary.
#include <sstream>

#include "conformance_internal.hpp"

namespace tokenlab::conformance {

namespace {

// The two models: the suite's and one trained on the corpus's English lines only.
struct Model {
  const Segmenter& segmenter;
  const char* name;                       // "model A"
  const char* what;                       // what it was trained on
  std::vector<std::vector<TokenId>> own;  // its ids for each word, from a thread of its own
};

// The first word whose ids are not B's own: out of B's range, or not decoding back
// under B without an unknown token. "" when there is none.
std::string not_own(const Model& b, const std::vector<std::string>& words) {
  const std::size_t size = b.segmenter.vocabulary().size();
  const auto unknown = b.segmenter.vocabulary().unknown_id();
  const std::string intro = std::string(b.name) + " (" + b.what + "), on a thread of its own";
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::string why = first_bad_id({b.own[i]}, {words[i]}, size);
    if (!why.empty()) return intro + ": " + why;
    if (contains_id(b.own[i], unknown)) continue;
    if (const std::string back = b.segmenter.decode(b.own[i]); back != words[i])
      return intro + ", encodes " + quote(words[i]) + " as " + show_ids(b.own[i]) +
             ", which it decodes to " + quote(back) + ": another model's ids?";
  }
  return {};
}

// Encodes each word with first, then second, on one thread: each must give its own ids.
std::string alternate(const Model& first, const Model& second,
                      const std::vector<std::string>& words) {
  for (std::size_t i = 0; i < words.size(); ++i) {
    if (const auto ids = encode_one(first.segmenter, words[i]); ids != first.own[i])
      return std::string("expected ") + first.name + " (" + first.what + ") to encode " +
             quote(words[i]) + " as " + show_ids(first.own[i]) +
             ", as on a thread of its own, got " + show_ids(ids) + " after " + second.name +
             " had encoded other words on its thread";
    const auto ids = encode_one(second.segmenter, words[i]);
    if (ids != second.own[i])
      return std::string("expected ") + second.name + " (" + second.what + ") to encode " +
             quote(words[i]) + " as " + show_ids(second.own[i]) +
             ", as on a thread of its own, got " + show_ids(ids) +
             (ids == first.own[i] ? std::string(", ") + first.name + "'s ids," : "") + " after " +
             first.name + " (" + first.what +
             ") encoded it on the same thread: a cache keyed by the word but not by the model?";
  }
  return {};
}

}  // namespace

bool save_load(Run& run, std::string& d) {
  std::stringstream buffer;
  run.segmenter->save(buffer);
  auto loaded = run.fresh();
  loaded->load(buffer);
  if (loaded->vocabulary().pieces() != run.vocabulary().pieces()) {
    d = "expected the same vocabulary after load, it differs";
    return false;
  }
  if (encode_all(*loaded, run.words) != run.encodings ||
      encode_all(*loaded, unseen_words()) != run.unseen) {
    d = "expected the same encodings after load, they differ";
    return false;
  }
  return true;
}

bool rejects_garbage(Run& run, std::string& d) {
  auto loaded = run.fresh();
  std::istringstream garbage("this is not a model payload at all");
  try {
    loaded->load(garbage);
  } catch (const std::exception& e) {
    d = e.what();
    return true;
  }
  d = "expected load() to throw on garbage, it returned normally";
  return false;
}

bool two_models(Run& run, std::string& d) {
  // A sweep or a comparison holds several models of one plugin in one process:
  // whatever an encoder remembers must belong to one model. Each model's own ids
  // come from a thread of its own; then the two alternate, word by word.
  const WordCounts english = english_counts();
  auto trained_b = run.fresh();
  trained_b->train(english, run.options, nullptr);
  std::vector<std::string> words = run.words;
  words.insert(words.end(), unseen_words().begin(), unseen_words().end());
  Model a{*run.segmenter, "model A", "the whole corpus", {}};
  Model b{*trained_b, "model B", "the corpus's English lines", {}};
  a.own = on_fresh_thread([&] { return encode_all(a.segmenter, words); });
  b.own = on_fresh_thread([&] { return encode_all(b.segmenter, words); });
  d = not_own(b, words);
  if (d.empty()) d = on_fresh_thread([&] { return alternate(a, b, words); });
  if (d.empty()) d = on_fresh_thread([&] { return alternate(b, a, words); });
  if (!d.empty()) return false;
  // One object trained twice: what it remembered of its first model must go.
  d = on_fresh_thread([&]() -> std::string {
    auto c = run.fresh();
    c->train(run.counts, run.options, nullptr);
    (void)encode_all(*c, words);
    c->train(english, run.options, nullptr);
    for (std::size_t i = 0; i < words.size(); ++i)
      if (const auto ids = encode_one(*c, words[i]); ids != b.own[i])
        return "expected a segmenter trained again (on the English lines) to encode " +
               quote(words[i]) + " as " + show_ids(b.own[i]) + ", as model B does, got " +
               show_ids(ids) + ": a cache not cleared when the model changes?";
    return {};
  });
  if (!d.empty()) return false;
  std::size_t differ = 0;
  for (std::size_t i = 0; i < words.size(); ++i) differ += a.own[i] != b.own[i];
  d = std::to_string(differ) + " of " + std::to_string(words.size()) +
      " words encode differently under the two models";
  return true;
}

}  // namespace tokenlab::conformance
