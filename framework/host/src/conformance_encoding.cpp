// The checks on the encodings of the suite's model: encode() appends, ids are in
// range and stand for their own pieces, words come back, unseen text is encoded,
// and the empty and the very long word.
#include <set>
#include <span>

#include "conformance_internal.hpp"
#include "tokenlab/alphabet.hpp"

namespace tokenlab::conformance {

bool encodes(Run& run, std::string& d) {
  run.encodings = encode_all(*run.segmenter, run.words);
  run.unseen = encode_all(*run.segmenter, unseen_words());
  d = std::to_string(run.encodings.size()) + " words";
  return true;
}

bool ids_in_range(Run& run, std::string& d) {
  const std::size_t size = run.vocabulary().size();
  d = first_bad_id(run.encodings, run.words, size);
  if (d.empty()) d = first_bad_id(run.unseen, unseen_words(), size);
  run.ids_in_range = d.empty();  // the next check needs it
  return run.ids_in_range;
}

bool ids_decode_to_own_piece(Run& run, std::string& d) {
  if (!run.ids_in_range) {
    d = "not checked: ids out of range";
    return false;
  }
  // An id must stand for its own piece: decode of the id alone is text found in
  // piece(id) (pieces may carry decoration, as WordPiece's ##). Ids shifted by
  // one, say, decode to a neighbour's text. Specials and byte pieces are exempt.
  const Vocabulary& vocabulary = run.vocabulary();
  const auto bytes = byte_fallback_ids(vocabulary);
  const std::set<TokenId> exempt(bytes.begin(), bytes.end());
  std::set<TokenId> seen;
  for (const auto& ids : run.encodings) seen.insert(ids.begin(), ids.end());
  for (const TokenId id : seen) {
    if (vocabulary.is_special(id) || exempt.count(id) > 0) continue;
    const std::string text = run.segmenter->decode(std::span<const TokenId>(&id, 1));
    if (text.empty() || vocabulary.piece(id).find(text) == std::string::npos) {
      d = "expected id " + std::to_string(id) + " to decode to text of its piece '" +
          vocabulary.piece(id) + "', got '" + text + "'";
      return false;
    }
  }
  d = std::to_string(seen.size()) + " distinct ids";
  return true;
}

bool round_trips(Run& run, std::string& d) {
  std::size_t checked = 0;
  for (std::size_t i = 0; i < run.encodings.size(); ++i) {
    if (contains_id(run.encodings[i], run.unknown())) continue;
    ++checked;
    const std::string back = run.segmenter->decode(run.encodings[i]);
    if (back != run.words[i]) {
      d = "expected '" + run.words[i] + "' back, got '" + back + "' from ids " +
          show_ids(run.encodings[i]);
      return false;
    }
  }
  d = std::to_string(checked) + " of " + std::to_string(run.encodings.size()) +
      " words without unknown tokens";
  if (checked == 0) d = "expected some words without unknown tokens, every word had one";
  return checked > 0;
}

bool unseen_encoded(Run& run, std::string& d) {
  // Each unseen word must come back whole, or hold the unknown token where text
  // could not be represented: an encoder that skips what it does not know fails.
  for (std::size_t i = 0; i < run.unseen.size(); ++i) {
    const std::string& word = unseen_words()[i];
    if (run.unseen[i].empty()) {
      d = "expected ids for unseen word '" + word + "', got none";
      return false;
    }
    if (contains_id(run.unseen[i], run.unknown())) continue;
    const std::string back = run.segmenter->decode(run.unseen[i]);
    if (back != word) {
      d = "expected unseen word '" + word + "' back, or the unknown token, got '" + back +
          "' from ids " + show_ids(run.unseen[i]);
      return false;
    }
  }
  d = std::to_string(run.unseen.size()) + " unseen words";
  return true;
}

bool empty_word(Run& run, std::string& d) {
  const auto ids = encode_one(*run.segmenter, "");
  const std::string back = run.segmenter->decode(ids);
  d = std::to_string(ids.size()) + " ids";
  if (!ids.empty() || !back.empty())
    d = "expected no ids and empty text, got " + std::to_string(ids.size()) + " ids";
  return ids.empty() && back.empty();
}

bool long_word(Run& run, std::string& d) {
  std::string word(kBoundaryMarker);
  while (word.size() < (1u << 20)) word += "lowestnewerwider";
  const auto ids = encode_one(*run.segmenter, word);
  d = std::to_string(ids.size()) + " ids";
  if (ids.empty()) {
    d = "expected ids, got none";
    return false;
  }
  if (const auto bad = first_bad_id({ids}, {"(the 1 MB word)"}, run.vocabulary().size());
      !bad.empty()) {
    d = bad;
    return false;
  }
  if (!contains_id(ids, run.unknown()) && run.segmenter->decode(ids) != word) {
    d = "expected the word back (no unknown token), decode differs";
    return false;
  }
  return true;
}

}  // namespace tokenlab::conformance
