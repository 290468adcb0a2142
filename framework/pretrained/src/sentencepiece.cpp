// SentencePiece's .model files (a protobuf ModelProto), read and run exactly as
// libsentencepiece runs them: spm_encode --output_format=id and spm_decode of
// Debian's sentencepiece 0.1.97 are the reference. Each part names the function
// of google/sentencepiece (src/, tag v0.1.97) that it reproduces:
//
//   normalizer   normalizer.cc  Normalizer::Normalize, NormalizePrefix, PrefixMatcher
//   unigram      unigram_model.cc  Model::EncodeOptimized (the default encoder)
//   bpe          bpe_model.cc  Model::SampleEncode with alpha 0 (= Encode)
//   word, char   word_model.cc, char_model.cc  Model::Encode
//   ids          sentencepiece_processor.cc  PopulateSentencePieceText (unknown
//                pieces merged, or split into <0xNN> bytes with byte_fallback)
//   decoder      sentencepiece_processor.cc  SentencePieceProcessor::Decode
//   validation   model_interface.cc  ModelInterface::InitializePieces
#include <algorithm>
#include <array>
#include <bit>
#include <cfloat>
#include <climits>
#include <cmath>
#include <queue>
#include <span>
#include <unordered_map>

#include "precompiled.hpp"
#include "sentencepiece_model.pb.h"
#include "tokenlab/alphabet.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/pretrained/components.hpp"
#include "tokenlab/pretrained/formats.hpp"
#include "tokenlab/utf8.hpp"
#include "tokenlab/vocabulary.hpp"

namespace tokenlab {
namespace {

using Proto = sentencepiece::ModelProto;

constexpr std::string_view kSpaceSymbol = "\xE2\x96\x81";  // U+2581, "▁"

// string_util::OneCharLen: the length a lead byte announces, whatever follows.
inline std::size_t one_char_len(char c) noexcept {
  return static_cast<std::size_t>(
      "\1\1\1\1\1\1\1\1\1\1\1\1\2\2\3\4"[static_cast<unsigned char>(c) >> 4]);
}
// As SentencePiece steps through normalized text: std::min(OneCharLen, rest).
inline std::size_t char_length_at(std::string_view s, std::size_t pos) noexcept {
  return std::min(one_char_len(s[pos]), s.size() - pos);
}

// ---- a double-array trie over bytes --------------------------------------------

// A byte trie in a double array (base + label -> child, check = parent), built
// once from sorted keys. Every node's 256 child slots lie inside the array, so
// a step is two loads and a compare, with no bounds check.
class DoubleArray {
 public:
  static constexpr std::uint32_t kFail = 0xFFFFFFFFu;
  using Key = std::pair<std::string_view, std::int32_t>;

  DoubleArray() {
    units_.resize(kBlock + 1);
    units_[0].check = kRoot;
  }

  /// keys: sorted bytewise, unique, non-empty; values >= 0.
  void build(const std::vector<Key>& keys);

  [[nodiscard]] std::uint32_t next(std::uint32_t node, unsigned char c) const noexcept {
    const std::uint32_t to = static_cast<std::uint32_t>(units_[node].base) + c;
    return units_[to].check == static_cast<std::int32_t>(node) ? to : kFail;
  }
  [[nodiscard]] std::int32_t value(std::uint32_t node) const noexcept { return units_[node].value; }

  /// The value of key, or -1.
  [[nodiscard]] std::int32_t find(std::string_view key) const noexcept {
    std::uint32_t node = 0;
    for (const char ch : key) {
      node = next(node, static_cast<unsigned char>(ch));
      if (node == kFail) return -1;
    }
    return units_[node].value;
  }
  /// The length of the longest key that is a prefix of text, or 0.
  [[nodiscard]] std::size_t longest_prefix(std::string_view text) const noexcept {
    std::uint32_t node = 0;
    std::size_t longest = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
      node = next(node, static_cast<unsigned char>(text[i]));
      if (node == kFail) break;
      if (units_[node].value >= 0) longest = i + 1;
    }
    return longest;
  }
  [[nodiscard]] std::size_t size() const noexcept { return units_.size(); }

 private:
  static constexpr std::size_t kBlock = 256;
  static constexpr std::int32_t kFree = -1;
  static constexpr std::int32_t kRoot = -2;  // the root's check: nobody's child
  struct Unit {
    std::int32_t base = 0;  // 0 for a node without children: its slots hold no check == it
    std::int32_t check = kFree;
    std::int32_t value = -1;
  };
  struct Group {
    unsigned char label;
    std::size_t lo;
    std::size_t hi;
  };

  // Slots [size, n) appended to the array and to the free list.
  void grow(std::size_t n);
  void take(std::size_t slot);
  std::int32_t find_base(const std::vector<Group>& groups);

  std::vector<Unit> units_;
  // Construction only: the free slots as a doubly linked list in slot order,
  // and one past the highest slot in use.
  std::vector<std::int32_t> next_free_;
  std::vector<std::int32_t> prev_free_;
  std::int32_t free_head_ = -1;
  std::int32_t free_tail_ = -1;
  std::size_t used_end_ = 1;
};

void DoubleArray::grow(std::size_t n) {
  if (n > static_cast<std::size_t>(INT32_MAX))
    throw Error("SentencePiece: the vocabulary is too large for tokenlab's trie");
  const std::size_t old = units_.size();
  if (n <= old) return;
  units_.resize(n);
  next_free_.resize(n, -1);
  prev_free_.resize(n, -1);
  for (std::size_t i = old; i < n; ++i) {
    const auto slot = static_cast<std::int32_t>(i);
    prev_free_[i] = free_tail_;
    if (free_tail_ >= 0)
      next_free_[static_cast<std::size_t>(free_tail_)] = slot;
    else
      free_head_ = slot;
    free_tail_ = slot;
  }
}

void DoubleArray::take(std::size_t slot) {
  const std::int32_t prev = prev_free_[slot];
  const std::int32_t next = next_free_[slot];
  if (prev >= 0)
    next_free_[static_cast<std::size_t>(prev)] = next;
  else
    free_head_ = next;
  if (next >= 0)
    prev_free_[static_cast<std::size_t>(next)] = prev;
  else
    free_tail_ = prev;
  used_end_ = std::max(used_end_, slot + 1);
}

std::int32_t DoubleArray::find_base(const std::vector<Group>& groups) {
  const std::size_t first_label = groups.front().label;
  const auto fits = [&](std::size_t base) {
    grow(base + 2 * kBlock);  // every slot base + 0..255 exists, and one block beyond
    for (const Group& g : groups)
      if (units_[base + g.label].check != kFree) return false;
    return true;
  };
  // First fit over the free slots, as double-array builders do; after a
  // bounded number of tries, past the last slot in use (where anything fits).
  constexpr int kMaxTries = 512;
  int tries = 0;
  for (std::int32_t p = free_head_; p >= 0 && tries < kMaxTries;
       p = next_free_[static_cast<std::size_t>(p)], ++tries) {
    const auto slot = static_cast<std::size_t>(p);
    if (slot <= first_label) continue;
    if (fits(slot - first_label)) return static_cast<std::int32_t>(slot - first_label);
  }
  const std::size_t base = std::max<std::size_t>(used_end_, 1);
  if (!fits(base)) throw Error("SentencePiece: internal error building the piece trie");
  return static_cast<std::int32_t>(base);
}

void DoubleArray::build(const std::vector<Key>& keys) {
  units_.clear();
  next_free_.clear();
  prev_free_.clear();
  free_head_ = free_tail_ = -1;
  grow(2 * kBlock);
  take(0);
  units_[0].check = kRoot;
  used_end_ = 1;
  struct Task {
    std::uint32_t node;
    std::size_t lo;
    std::size_t hi;
    std::size_t depth;
  };
  std::vector<Task> tasks{{0, 0, keys.size(), 0}};
  std::vector<Group> groups;
  while (!tasks.empty()) {
    const Task task = tasks.back();
    tasks.pop_back();
    std::size_t lo = task.lo;
    // Sorted keys sharing the first depth bytes: the one that ends here is first.
    if (lo < task.hi && keys[lo].first.size() == task.depth)
      units_[task.node].value = keys[lo++].second;
    if (lo == task.hi) continue;
    groups.clear();
    for (std::size_t i = lo; i < task.hi;) {
      const auto label = static_cast<unsigned char>(keys[i].first[task.depth]);
      std::size_t j = i + 1;
      while (j < task.hi && static_cast<unsigned char>(keys[j].first[task.depth]) == label) ++j;
      groups.push_back({label, i, j});
      i = j;
    }
    const std::int32_t base = find_base(groups);
    units_[task.node].base = base;
    for (const Group& g : groups) {
      const std::size_t child = static_cast<std::size_t>(base) + g.label;
      take(child);
      units_[child].check = static_cast<std::int32_t>(task.node);
      tasks.push_back({static_cast<std::uint32_t>(child), g.lo, g.hi, task.depth + 1});
    }
  }
  // Every node's 256 child slots must exist: base + 255 < size for the largest
  // base, which grow() guaranteed; trim what lies beyond.
  std::size_t needed = kBlock + 1;
  for (const Unit& u : units_) needed = std::max(needed, static_cast<std::size_t>(u.base) + kBlock);
  units_.resize(needed);
  units_.shrink_to_fit();
  next_free_ = {};
  prev_free_ = {};
}

// ---- the vocabulary --------------------------------------------------------------

enum class PieceType : std::uint8_t {
  normal = Proto::SentencePiece::NORMAL,
  unknown = Proto::SentencePiece::UNKNOWN,
  control = Proto::SentencePiece::CONTROL,
  user_defined = Proto::SentencePiece::USER_DEFINED,
  unused = Proto::SentencePiece::UNUSED,
  byte = Proto::SentencePiece::BYTE,
};

// ModelInterface's tables: the pieces by id, the trie of "normal" pieces
// (NORMAL, USER_DEFINED, UNUSED; SentencePiece's pieces_) and the reserved ones
// (UNKNOWN, CONTROL, BYTE; reserved_id_map_), and the user-defined symbols'
// prefix matcher.
struct SpmVocabulary {
  std::vector<std::string> pieces;
  std::vector<PieceType> types;
  std::vector<float> scores;
  DoubleArray trie;
  std::unordered_map<std::string, TokenId, StringHash, std::equal_to<>> reserved;
  DoubleArray user_defined;  // PrefixMatcher: values >= 0 mark a symbol's end
  bool has_user_defined = false;
  bool has_unused = false;
  TokenId unknown = 0;
  bool byte_fallback = false;
  std::array<TokenId, 256> byte_ids{};
  std::vector<std::int16_t> byte_of;  // the byte of a BYTE piece, else -1

  // ModelInterface::PieceToId: reserved pieces first, then the others, else unknown.
  // The reader refuses a string spelling both a reserved and a normal piece, so
  // the trie may be asked first (a walk over the bytes, cheaper than a hash).
  [[nodiscard]] TokenId piece_to_id(std::string_view piece) const {
    if (const std::int32_t id = trie.find(piece); id >= 0) return static_cast<TokenId>(id);
    if (const auto it = reserved.find(piece); it != reserved.end()) return it->second;
    return unknown;
  }
  // PrefixMatcher::PrefixMatch: the longest user-defined symbol at the start of
  // text (0: none).
  [[nodiscard]] std::size_t user_defined_prefix(std::string_view text) const noexcept {
    return has_user_defined ? user_defined.longest_prefix(text) : 0;
  }
};

// A piece of the model's segmentation: bytes [start, start + length) of the
// normalized text, and its id.
struct Segment {
  std::uint32_t start;
  std::uint32_t length;
  TokenId id;
};

// SentencePieceProcessor::PopulateSentencePieceText, ids only: a run of unknown
// pieces becomes one unknown id; with byte_fallback each unknown piece becomes
// the <0xNN> pieces of its bytes instead.
void append_ids(const SpmVocabulary& vocabulary, std::string_view normalized,
                std::span<const Segment> segments, std::vector<TokenId>& out) {
  bool previous_unknown = false;
  for (const Segment& s : segments) {
    const bool unknown = vocabulary.types[s.id] == PieceType::unknown;
    if (unknown && vocabulary.byte_fallback) {
      for (std::uint32_t b = 0; b < s.length; ++b)
        out.push_back(vocabulary.byte_ids[static_cast<unsigned char>(normalized[s.start + b])]);
    } else if (!(unknown && previous_unknown)) {
      // A CONTROL id can come only from a word or character equal to a control
      // piece; SentencePiece then fails the whole line (its surface check), and
      // tokenlab keeps the id.
      out.push_back(s.id);
    }
    previous_unknown = unknown;
  }
}

// ---- normalizer ----------------------------------------------------------------

struct NormalizerFlags {
  bool add_dummy_prefix = true;
  bool remove_extra_whitespaces = true;
  bool escape_whitespaces = true;
  bool treat_whitespace_as_suffix = false;
};

// normalizer::Normalizer::Normalize, without the alignment.
class SpmNormalizer final : public NormalizerStep {
 public:
  SpmNormalizer(detail::CharsMap map, std::shared_ptr<const SpmVocabulary> matcher,
                NormalizerFlags flags, std::string name)
      : map_(std::move(map)), matcher_(std::move(matcher)), flags_(flags), name_(std::move(name)) {
    if (matcher_ && !matcher_->has_user_defined) matcher_.reset();
    // Bytes that stand for themselves: ASCII other than the space, with no rule
    // and no user-defined symbol starting at them.
    const auto ruled = [&](unsigned char c) {
      return map_.may_start(c) ||
             (matcher_ && matcher_->user_defined.next(0, c) != DoubleArray::kFail);
    };
    for (unsigned c = 0; c < 0x80; ++c)
      plain_[c] = c != ' ' && !ruled(static_cast<unsigned char>(c));
    plain_space_ = !ruled(' ');
    // Bytes that stand for themselves when an ASCII byte (or the end) follows.
    for (unsigned c = 0; c < 0x80; ++c) {
      const auto byte = static_cast<unsigned char>(c);
      bool safe = c != ' ' && map_.ascii_safe(byte);
      if (safe && matcher_) {
        const DoubleArray& user = matcher_->user_defined;
        if (const std::uint32_t node = user.next(0, byte); node != DoubleArray::kFail) {
          safe = user.value(node) < 0;
          for (unsigned next = 0; next < 0x80 && safe; ++next)
            safe = user.next(node, static_cast<unsigned char>(next)) == DoubleArray::kFail;
        }
      }
      ascii_safe_[c] = plain_[c] || safe;
    }
  }

  void apply(std::string& text) const override {
    thread_local std::string out;
    normalize(text, out);
    text.swap(out);
  }

  void normalize(std::string_view input, std::string& out) const {
    out.clear();
    if (input.empty()) return;
    std::size_t consumed = 0;
    if (flags_.remove_extra_whitespaces) {  // leading white space
      while (!input.empty()) {
        if (prefix(input, consumed) != " ") break;
        input.remove_prefix(consumed);
      }
    }
    if (input.empty()) return;
    out.reserve(input.size() * 3 / 2 + 8);
    const auto add_space = [&] {
      if (flags_.escape_whitespaces)
        out += kSpaceSymbol;
      else
        out += ' ';
    };
    if (!flags_.treat_whitespace_as_suffix && flags_.add_dummy_prefix) add_space();
    bool previous_space = flags_.remove_extra_whitespaces;
    while (!input.empty()) {
      if (stands_for_itself(input, 0)) {
        // A run of such bytes: each is its own piece, copied, and not a space.
        std::size_t run = 1;
        while (run < input.size() && stands_for_itself(input, run)) ++run;
        out.append(input.substr(0, run));
        input.remove_prefix(run);
        previous_space = false;
        continue;
      }
      if (plain_space_ && input.front() == ' ') {
        // The piece " ": dropped after a space when removing extra white space.
        if (!previous_space) add_space();
        previous_space = flags_.remove_extra_whitespaces;
        input.remove_prefix(1);
        continue;
      }
      std::string_view piece = prefix(input, consumed);
      while (previous_space && !piece.empty() && piece.front() == ' ') piece.remove_prefix(1);
      if (!piece.empty()) {
        if (flags_.escape_whitespaces) {
          for (std::size_t from = 0;;) {
            const std::size_t space = piece.find(' ', from);
            if (space == std::string_view::npos) {
              out.append(piece.substr(from));
              break;
            }
            out.append(piece.substr(from, space - from));
            out += kSpaceSymbol;
            from = space + 1;
          }
        } else {
          out += piece;
        }
        previous_space = piece.back() == ' ';
      }
      input.remove_prefix(consumed);
      if (!flags_.remove_extra_whitespaces) previous_space = false;
    }
    if (flags_.remove_extra_whitespaces) {  // trailing white space (and "▁"s)
      const std::string_view space = flags_.escape_whitespaces ? kSpaceSymbol : " ";
      while (out.size() >= space.size() &&
             std::string_view(out).substr(out.size() - space.size()) == space)
        out.resize(out.size() - space.size());
    }
    if (flags_.treat_whitespace_as_suffix && flags_.add_dummy_prefix) add_space();
  }

  [[nodiscard]] std::string describe() const override {
    std::string d = "SentencePiece normalizer (";
    d += name_.empty() ? "unnamed" : name_;
    d += map_.empty() ? ", no rules" : ", " + std::to_string(map_.rule_count()) + " rules";
    if (flags_.add_dummy_prefix)
      d += flags_.treat_whitespace_as_suffix ? ", dummy suffix" : ", dummy prefix";
    if (flags_.remove_extra_whitespaces) d += ", remove extra white space";
    if (flags_.escape_whitespaces) d += ", spaces as \u2581";
    if (matcher_) d += ", user-defined symbols kept";
    return d + ")";
  }

 private:
  // Whether the byte at input[i] is ASCII that no rule or user-defined symbol
  // matches at (so NormalizePrefix would give it back as is), other than " ".
  bool stands_for_itself(std::string_view input, std::size_t i) const noexcept {
    const auto c = static_cast<unsigned char>(input[i]);
    if (plain_[c]) return true;
    return ascii_safe_[c] &&
           (i + 1 == input.size() || static_cast<unsigned char>(input[i + 1]) < 0x80);
  }

  // Normalizer::NormalizePrefix: what the start of input becomes, and how many
  // bytes it consumes.
  std::string_view prefix(std::string_view input, std::size_t& consumed) const {
    if (matcher_) {
      if (const std::size_t length = matcher_->user_defined_prefix(input); length != 0) {
        consumed = length;
        return input.substr(0, length);
      }
    }
    std::string_view replacement;
    if (const std::size_t length = map_.longest_match(input, replacement); length != 0) {
      consumed = length;
      return replacement;
    }
    const std::size_t length = utf8::sequence_length(input, 0);
    if (length == 0) {  // an ill-formed byte: U+FFFD for that one byte
      consumed = 1;
      return detail::kReplacementCharacter;
    }
    consumed = length;
    return input.substr(0, length);
  }

  detail::CharsMap map_;
  std::shared_ptr<const SpmVocabulary> matcher_;
  NormalizerFlags flags_;
  std::string name_;
  std::array<bool, 256> plain_{};
  std::array<bool, 256> ascii_safe_{};
  bool plain_space_ = false;
};

// ---- models --------------------------------------------------------------------

class SpmModel : public PretrainedModel {
 public:
  explicit SpmModel(std::shared_ptr<const SpmVocabulary> vocabulary)
      : vocabulary_(std::move(vocabulary)) {}
  [[nodiscard]] TokenId unknown_id() const override { return vocabulary_->unknown; }
  [[nodiscard]] std::string describe() const override {
    std::string d = std::to_string(vocabulary_->pieces.size()) + " pieces";
    if (vocabulary_->byte_fallback) d += ", byte fallback";
    return d;
  }

 protected:
  std::shared_ptr<const SpmVocabulary> vocabulary_;
};

// unigram::Model::EncodeOptimized: Viterbi over byte positions, the best path
// ending at each one kept. Scores are floats, user-defined pieces score
// length * max_score - 0.1 (a double), and the comparisons mix the two exactly
// as SentencePiece's do.
class SpmUnigramModel final : public SpmModel {
 public:
  explicit SpmUnigramModel(std::shared_ptr<const SpmVocabulary> vocabulary)
      : SpmModel(std::move(vocabulary)) {
    const SpmVocabulary& v = *vocabulary_;
    min_score_ = FLT_MAX;
    max_score_ = FLT_MIN;  // sic: the smallest positive float, not -FLT_MAX
    entries_.resize(v.pieces.size());
    for (std::size_t id = 0; id < v.pieces.size(); ++id) {
      entries_[id] = {v.scores[id], v.types[id]};
      if (v.types[id] != PieceType::normal) continue;
      min_score_ = std::min(min_score_, v.scores[id]);
      max_score_ = std::max(max_score_, v.scores[id]);
    }
    unknown_score_ = min_score_ - 10.0f;  // kUnkPenalty
  }

  void encode(std::string_view normalized, std::vector<TokenId>& out) const override {
    if (normalized.empty()) return;
    const SpmVocabulary& v = *vocabulary_;
    struct Best {
      TokenId id;
      float score;
      std::int32_t starts_at;
    };
    const std::size_t size = normalized.size();
    thread_local std::vector<Best> best_storage;
    std::vector<Best>& best = best_storage;  // one TLS lookup
    best.assign(size + 1, Best{0, 0.0f, -1});
    for (std::size_t starts_at = 0; starts_at < size;) {
      const float here = best[starts_at].score;
      const std::size_t char_length = char_length_at(normalized, starts_at);
      bool single_character = false;
      std::uint32_t node = 0;
      for (std::size_t key_pos = starts_at; key_pos < size;) {
        node = v.trie.next(node, static_cast<unsigned char>(normalized[key_pos]));
        if (node == DoubleArray::kFail) break;
        ++key_pos;
        const std::int32_t found = v.trie.value(node);
        if (found < 0) continue;
        const auto id = static_cast<TokenId>(found);
        const Entry entry = entries_[id];
        if (entry.type == PieceType::unused) continue;
        const std::size_t length = key_pos - starts_at;
        // User-defined symbols get a bonus "to always be selected": length in
        // bytes times the largest NORMAL score, minus 0.1.
        const double score =
            entry.type == PieceType::user_defined
                ? static_cast<double>(static_cast<float>(length) * max_score_) - 0.1
                : static_cast<double>(entry.score);
        const double candidate = score + static_cast<double>(here);
        Best& target = best[key_pos];
        if (target.starts_at == -1 || candidate > static_cast<double>(target.score)) {
          target.score = static_cast<float>(candidate);
          target.starts_at = static_cast<std::int32_t>(starts_at);
          target.id = id;
        }
        if (length == char_length) single_character = true;
      }
      if (!single_character) {
        Best& target = best[starts_at + char_length];
        const float candidate = unknown_score_ + here;
        if (target.starts_at == -1 || candidate > target.score) {
          target.score = candidate;
          target.starts_at = static_cast<std::int32_t>(starts_at);
          target.id = v.unknown;
        }
      }
      starts_at += char_length;
    }
    thread_local std::vector<Segment> segment_storage;
    std::vector<Segment>& segments = segment_storage;
    segments.clear();
    for (std::size_t ends_at = size; ends_at > 0;) {
      const Best& node = best[ends_at];
      const auto start = static_cast<std::size_t>(node.starts_at);
      segments.push_back({static_cast<std::uint32_t>(start),
                          static_cast<std::uint32_t>(ends_at - start), node.id});
      ends_at = start;
    }
    std::reverse(segments.begin(), segments.end());
    append_ids(v, normalized, segments, out);
  }

  [[nodiscard]] std::string type() const override { return "SentencePiece unigram"; }
  [[nodiscard]] bool has_nbest() const override { return true; }

  // unigram::Model::NBestEncode: the lattice of ModelBase::PopulateNodes, Viterbi
  // for each node's best score from the start, then Lattice::NBest's A* search
  // from the end, with SentencePiece's float arithmetic and its agenda (a
  // std::priority_queue on fx), so that paths of equal score come out in its order.
  [[nodiscard]] std::vector<Segmentation> nbest(std::string_view normalized,
                                                std::size_t k) const override {
    std::vector<Segmentation> results;
    k = std::min(k, kMaxNBest);  // SentencePiece clamps nbest_size to 1024 too
    if (normalized.empty() || k == 0) return results;
    const SpmVocabulary& v = *vocabulary_;
    struct Node {
      std::uint32_t begin;
      std::uint32_t length;  // bytes
      TokenId id;
      float score;
      float backtrace = 0.0f;
    };
    const std::size_t size = normalized.size();
    std::vector<Node> nodes;
    std::vector<std::vector<std::uint32_t>> begins(size + 1);
    std::vector<std::vector<std::uint32_t>> ends(size + 1);
    const auto insert = [&](std::size_t begin, std::size_t length, TokenId id, float score) {
      ends[begin + length].push_back(static_cast<std::uint32_t>(nodes.size()));
      begins[begin].push_back(static_cast<std::uint32_t>(nodes.size()));
      nodes.push_back(
          {static_cast<std::uint32_t>(begin), static_cast<std::uint32_t>(length), id, score});
    };
    constexpr TokenId kBoundary = kNoToken;
    insert(0, 0, kBoundary, 0.0f);  // BOS: the one node that ends at 0
    // Lattice::Insert puts a node in begin_nodes and end_nodes; BOS only ends at 0.
    begins[0].clear();
    for (std::size_t begin = 0; begin < size;) {
      const std::size_t char_length = char_length_at(normalized, begin);
      bool single_character = false;
      std::uint32_t node = 0;
      std::size_t characters = 0;
      for (std::size_t key_pos = begin; key_pos < size;) {
        node = v.trie.next(node, static_cast<unsigned char>(normalized[key_pos]));
        if (node == DoubleArray::kFail) break;
        ++key_pos;
        // PopulateNodes counts a piece's length in characters.
        if (key_pos == size || (static_cast<unsigned char>(normalized[key_pos]) & 0xC0) != 0x80)
          ++characters;
        const std::int32_t found = v.trie.value(node);
        if (found < 0) continue;
        const auto id = static_cast<TokenId>(found);
        if (entries_[id].type == PieceType::unused) continue;
        const float score =
            entries_[id].type == PieceType::user_defined
                ? static_cast<float>(static_cast<float>(characters) * max_score_ - 0.1)
                : entries_[id].score;
        insert(begin, key_pos - begin, id, score);
        if (key_pos - begin == char_length) single_character = true;
      }
      if (!single_character) insert(begin, char_length, v.unknown, unknown_score_);
      begin += char_length;
    }
    const auto eos = static_cast<std::uint32_t>(nodes.size());
    nodes.push_back({static_cast<std::uint32_t>(size), 0, kBoundary, 0.0f});
    begins[size].push_back(eos);
    // Lattice::Viterbi: each node's best score from BOS, its own included.
    for (std::size_t pos = 0; pos <= size; ++pos) {
      for (const std::uint32_t r : begins[pos]) {
        bool found = false;
        float best = 0.0f;
        for (const std::uint32_t l : ends[pos]) {
          const float score = nodes[l].backtrace + nodes[r].score;
          if (!found || score > best) {
            best = score;
            found = true;
          }
        }
        nodes[r].backtrace = best;
      }
    }
    struct Hypothesis {
      std::uint32_t node;
      std::int32_t next;  // index into hypotheses, -1 at EOS
      float fx;
      float gx;
    };
    std::vector<Hypothesis> hypotheses;
    const auto by_fx = [&](std::uint32_t a, std::uint32_t b) {
      return hypotheses[a].fx < hypotheses[b].fx;
    };
    std::priority_queue<std::uint32_t, std::vector<std::uint32_t>, decltype(by_fx)> agenda(by_fx);
    hypotheses.push_back({eos, -1, nodes[eos].score, nodes[eos].score});
    agenda.push(0);
    constexpr std::size_t kMaxAgendaSize = 100000;
    constexpr std::size_t kMinAgendaSize = 1000;
    while (!agenda.empty()) {
      const std::uint32_t top = agenda.top();
      agenda.pop();
      const Hypothesis here = hypotheses[top];
      if (here.node == 0) {  // BOS: a whole path
        thread_local std::vector<Segment> segments;
        segments.clear();
        for (std::int32_t h = here.next; hypotheses[static_cast<std::size_t>(h)].next != -1;
             h = hypotheses[static_cast<std::size_t>(h)].next) {
          const Node& n = nodes[hypotheses[static_cast<std::size_t>(h)].node];
          segments.push_back({n.begin, n.length, n.id});
        }
        Segmentation result;
        result.score = here.fx;
        append_ids(v, normalized, segments, result.ids);
        results.push_back(std::move(result));
        if (results.size() == k) break;
        continue;
      }
      for (const std::uint32_t l : ends[nodes[here.node].begin]) {
        // SentencePiece's pool grows without bound (the agenda is pruned, the
        // hypotheses are not): 'the' x 1000 at k = 100,000 took 5 GB.
        if (hypotheses.size() >= kMaxNBestHypotheses)
          throw Error("n-best: the " + std::to_string(k) + " best segmentations of a piece of " +
                      std::to_string(size) + " bytes need more than " +
                      std::to_string(kMaxNBestHypotheses) +
                      " search states; ask for fewer, or for a shorter text");
        hypotheses.push_back({l, static_cast<std::int32_t>(top), nodes[l].backtrace + here.gx,
                              nodes[l].score + here.gx});
        agenda.push(static_cast<std::uint32_t>(hypotheses.size() - 1));
      }
      // As SentencePiece: a huge agenda keeps only its best entries.
      if (agenda.size() >= kMaxAgendaSize) {
        const std::size_t keep = std::min(kMinAgendaSize, k * 10);
        std::vector<std::uint32_t> kept;
        for (std::size_t i = 0; i < keep && !agenda.empty(); ++i) {
          kept.push_back(agenda.top());
          agenda.pop();
        }
        while (!agenda.empty()) agenda.pop();
        for (const std::uint32_t h : kept) agenda.push(h);
      }
    }
    return results;
  }

 private:
  struct Entry {
    float score;
    PieceType type;
  };
  std::vector<Entry> entries_;
  float min_score_ = 0.0f;
  float max_score_ = 0.0f;
  float unknown_score_ = 0.0f;
};

// bpe::Model::SampleEncode with alpha 0: characters (and whole user-defined
// symbols, which never merge), then repeatedly the adjacent pair whose
// concatenation is a piece with the highest score, leftmost first; UNUSED pieces
// are split back into the pair they were made of.
class SpmBpeModel final : public SpmModel {
 public:
  using SpmModel::SpmModel;

 private:
  struct Symbol {
    std::int32_t prev;
    std::int32_t next;
    std::uint32_t start;
    std::uint32_t length;  // 0 once merged into its left neighbour
    std::uint32_t node;    // the trie node of its bytes, or kFail
    bool freeze;           // a user-defined symbol: never merged
  };
  // A candidate merge. key orders as SymbolPairComparator: the highest score
  // on top, then the leftmost pair.
  struct Pair {
    std::uint64_t key;
    std::uint32_t size;  // bytes of the merged piece
    std::uint32_t node;  // its trie node
    bool operator<(const Pair& o) const noexcept { return key < o.key; }
  };
  struct Scratch {
    std::vector<Symbol> symbols;
    std::vector<Pair> agenda;
    std::vector<Segment> segments;
    // rev_merge: for UNUSED pieces, the pair that last made each one.
    std::unordered_map<std::string_view, std::pair<std::string_view, std::string_view>> rev_merge;
  };
  static Scratch& scratch_space() {
    thread_local Scratch scratch;
    return scratch;
  }
  // The float's order as an unsigned integer (0.0 and -0.0 alike, as == has
  // them), above the left index counted down.
  static std::uint64_t pair_key(float score, std::int32_t left) noexcept {
    if (score == 0.0f) score = 0.0f;
    std::uint32_t bits = std::bit_cast<std::uint32_t>(score);
    bits = (bits & 0x80000000u) != 0 ? ~bits : bits | 0x80000000u;
    return (std::uint64_t{bits} << 32) | (0xFFFFFFFFu - static_cast<std::uint32_t>(left));
  }

 public:
  void encode(std::string_view normalized, std::vector<TokenId>& out) const override {
    if (normalized.empty()) return;
    const SpmVocabulary& v = *vocabulary_;
    Scratch& scratch = scratch_space();  // one TLS lookup, not one per use
    std::vector<Symbol>& symbols = scratch.symbols;
    std::vector<Pair>& agenda = scratch.agenda;
    auto& rev_merge = scratch.rev_merge;
    symbols.clear();
    agenda.clear();
    if (v.has_unused) rev_merge.clear();

    const auto walk = [&v](std::uint32_t node, std::string_view bytes) {
      for (const char ch : bytes) {
        if (node == DoubleArray::kFail) break;
        node = v.trie.next(node, static_cast<unsigned char>(ch));
      }
      return node;
    };
    const auto text_of = [&](const Symbol& s) { return normalized.substr(s.start, s.length); };
    const auto maybe_add_pair = [&](std::int32_t left, std::int32_t right) {
      if (left == -1 || right == -1) return;
      const Symbol& l = symbols[static_cast<std::size_t>(left)];
      const Symbol& r = symbols[static_cast<std::size_t>(right)];
      if (l.freeze || r.freeze || l.node == DoubleArray::kFail) return;
      const std::uint32_t node = walk(l.node, text_of(r));
      if (node == DoubleArray::kFail) return;
      const std::int32_t id = v.trie.value(node);
      if (id < 0) return;
      agenda.push_back(
          {pair_key(v.scores[static_cast<std::size_t>(id)], left), l.length + r.length, node});
      std::push_heap(agenda.begin(), agenda.end());
      if (v.types[static_cast<std::size_t>(id)] == PieceType::unused)
        rev_merge[normalized.substr(l.start, l.length + r.length)] = {text_of(l), text_of(r)};
    };

    for (std::size_t at = 0; at < normalized.size();) {
      std::size_t length = v.user_defined_prefix(normalized.substr(at));
      const bool freeze = length != 0;
      if (!freeze) length = char_length_at(normalized, at);
      const auto index = static_cast<std::int32_t>(symbols.size());
      symbols.push_back({index - 1, at + length < normalized.size() ? index + 1 : -1,
                         static_cast<std::uint32_t>(at), static_cast<std::uint32_t>(length),
                         walk(0, normalized.substr(at, length)), freeze});
      at += length;
    }
    for (std::size_t i = 1; i < symbols.size(); ++i)
      maybe_add_pair(static_cast<std::int32_t>(i - 1), static_cast<std::int32_t>(i));

    while (!agenda.empty()) {
      std::pop_heap(agenda.begin(), agenda.end());
      const Pair top = agenda.back();
      agenda.pop_back();
      const auto left_index = static_cast<std::int32_t>(0xFFFFFFFFu - (top.key & 0xFFFFFFFFu));
      Symbol& left = symbols[static_cast<std::size_t>(left_index)];
      // SentencePiece's staleness test looks at the pair's right symbol; the
      // left one's current neighbour gives the same answer: once left has
      // merged to the right, its length alone reaches top.size.
      if (left.length == 0 || left.next < 0) continue;
      Symbol& right = symbols[static_cast<std::size_t>(left.next)];
      if (left.length + right.length != top.size) continue;  // stale
      left.length += right.length;
      left.node = top.node;
      left.next = right.next;
      if (right.next >= 0) symbols[static_cast<std::size_t>(right.next)].prev = left_index;
      right.length = 0;
      maybe_add_pair(left.prev, left_index);
      maybe_add_pair(left_index, left.next);
    }

    std::vector<Segment>& segments = scratch.segments;
    segments.clear();
    // resegment: PieceToId, and UNUSED pieces split back recursively.
    const auto resegment = [&](auto&& self, std::string_view piece, std::uint32_t node) -> void {
      // No piece is both reserved and normal, so the trie's answer is PieceToId's.
      const TokenId id = node != DoubleArray::kFail && v.trie.value(node) >= 0
                             ? static_cast<TokenId>(v.trie.value(node))
                             : v.piece_to_id(piece);
      if (v.types[id] == PieceType::unused) {
        if (const auto it = rev_merge.find(piece); it != rev_merge.end()) {
          const auto [a, b] = it->second;
          self(self, a, walk(0, a));
          self(self, b, walk(0, b));
          return;
        }
      }
      segments.push_back({static_cast<std::uint32_t>(piece.data() - normalized.data()),
                          static_cast<std::uint32_t>(piece.size()), id});
    };
    for (std::int32_t i = 0; i != -1; i = symbols[static_cast<std::size_t>(i)].next) {
      const Symbol& s = symbols[static_cast<std::size_t>(i)];
      resegment(resegment, text_of(s), s.node);
    }
    append_ids(v, normalized, segments, out);
  }

  [[nodiscard]] std::string type() const override { return "SentencePiece BPE"; }
};

// word::Model::Encode: SplitIntoWords (a word starts at the text and at each
// "▁"), each word's id or unknown.
class SpmWordModel final : public SpmModel {
 public:
  using SpmModel::SpmModel;
  void encode(std::string_view normalized, std::vector<TokenId>& out) const override {
    if (normalized.empty()) return;
    thread_local std::vector<Segment> segments;
    segments.clear();
    std::size_t word = 0;
    const auto flush = [&](std::size_t end) {
      const std::string_view w = normalized.substr(word, end - word);
      segments.push_back({static_cast<std::uint32_t>(word), static_cast<std::uint32_t>(w.size()),
                          vocabulary_->piece_to_id(w)});
    };
    for (std::size_t at = 0; at < normalized.size();) {
      const std::size_t length = char_length_at(normalized, at);
      if (at != 0 && normalized.substr(at, length) == kSpaceSymbol) {
        flush(at);
        word = at;
      }
      at += length;
    }
    flush(normalized.size());
    append_ids(*vocabulary_, normalized, segments, out);
  }
  [[nodiscard]] std::string type() const override { return "SentencePiece word"; }
};

// character::Model::Encode: user-defined symbols whole, else one character.
class SpmCharModel final : public SpmModel {
 public:
  using SpmModel::SpmModel;
  void encode(std::string_view normalized, std::vector<TokenId>& out) const override {
    if (normalized.empty()) return;
    thread_local std::vector<Segment> segments;
    segments.clear();
    for (std::size_t at = 0; at < normalized.size();) {
      std::size_t length = vocabulary_->user_defined_prefix(normalized.substr(at));
      if (length == 0) length = char_length_at(normalized, at);
      segments.push_back({static_cast<std::uint32_t>(at), static_cast<std::uint32_t>(length),
                          vocabulary_->piece_to_id(normalized.substr(at, length))});
      at += length;
    }
    append_ids(*vocabulary_, normalized, segments, out);
  }
  [[nodiscard]] std::string type() const override { return "SentencePiece char"; }
};

// ---- decoder -------------------------------------------------------------------

// SentencePieceProcessor::Decode: control pieces vanish, the unknown piece is
// unk_surface (" ⁇ "), runs of byte pieces become their bytes (each ill-formed
// byte U+FFFD), "▁" becomes a space, and the first "▁" of the text goes (every
// leading one with remove_extra_whitespaces); then the denormalizer, if any.
class SpmDecoder final : public DecoderStep {
 public:
  SpmDecoder(std::shared_ptr<const SpmVocabulary> vocabulary, std::string unknown_surface,
             bool add_dummy_prefix, bool remove_extra_whitespaces,
             std::unique_ptr<SpmNormalizer> denormalizer)
      : vocabulary_(std::move(vocabulary)),
        unknown_surface_(std::move(unknown_surface)),
        add_dummy_prefix_(add_dummy_prefix),
        remove_extra_whitespaces_(remove_extra_whitespaces),
        denormalizer_(std::move(denormalizer)) {}

  void decode(std::vector<std::string>& tokens) const override {
    const SpmVocabulary& v = *vocabulary_;
    std::string text;
    std::string bytes;
    const auto flush_bytes = [&] {
      for (std::size_t i = 0; i < bytes.size();) {
        const std::size_t length = utf8::sequence_length(bytes, i);
        if (length == 0) {
          text += detail::kReplacementCharacter;
          ++i;
        } else {
          text.append(bytes, i, length);
          i += length;
        }
      }
      bytes.clear();
    };
    bool at_start = true;  // is_bos_ws
    bool start_space_seen = false;
    for (const std::string& token : tokens) {
      const TokenId id = v.piece_to_id(token);
      const PieceType type = v.types[id];
      if (type == PieceType::byte) {
        bytes += static_cast<char>(v.byte_of[id]);
        continue;
      }
      flush_bytes();
      if (start_space_seen || !text.empty()) at_start = false;
      if (type == PieceType::control) {
        start_space_seen = false;
        continue;
      }
      if (type == PieceType::unknown) {
        // The piece of the unknown id itself; any other text would be kept.
        text += v.pieces[id] == token ? unknown_surface_ : token;
        start_space_seen = false;
        continue;
      }
      std::string_view piece = token;
      bool consumed = false;
      if (at_start && (add_dummy_prefix_ || remove_extra_whitespaces_)) {
        if (piece.starts_with(kSpaceSymbol)) {
          piece.remove_prefix(kSpaceSymbol.size());
          consumed = true;
        }
        if (remove_extra_whitespaces_) consumed = false;
      }
      for (std::size_t from = 0;;) {
        const std::size_t space = piece.find(kSpaceSymbol, from);
        if (space == std::string_view::npos) {
          text.append(piece.substr(from));
          break;
        }
        text.append(piece.substr(from, space - from));
        text += ' ';
        from = space + kSpaceSymbol.size();
      }
      start_space_seen = consumed;
    }
    flush_bytes();
    if (denormalizer_) {
      std::string denormalized;
      denormalizer_->normalize(text, denormalized);
      text.swap(denormalized);
    }
    tokens.clear();
    tokens.push_back(std::move(text));
  }

  [[nodiscard]] std::string describe() const override {
    std::string d = "SentencePiece decoder";
    if (denormalizer_) d += " with " + denormalizer_->describe();
    return d;
  }

 private:
  std::shared_ptr<const SpmVocabulary> vocabulary_;
  std::string unknown_surface_;
  bool add_dummy_prefix_;
  bool remove_extra_whitespaces_;
  std::unique_ptr<SpmNormalizer> denormalizer_;
};

// ---- reading -------------------------------------------------------------------

// PieceToByte: "<0xNN>" with upper-case hex, as ByteToPiece spells it; or -1.
int piece_to_byte(std::string_view piece) {
  if (piece.size() != 6 || !piece.starts_with("<0x") || piece.back() != '>') return -1;
  int byte = 0;
  for (const char c : piece.substr(3, 2)) {
    byte <<= 4;
    if (c >= '0' && c <= '9')
      byte |= c - '0';
    else if (c >= 'A' && c <= 'F')
      byte |= c - 'A' + 10;
    else
      return -1;
  }
  return byte;
}

std::string quote_piece(std::string_view piece) {
  std::string q = "\"";
  for (const char c : piece) {
    const auto b = static_cast<unsigned char>(c);
    if (b < 0x20 || b == 0x7F) {
      static constexpr char kHex[] = "0123456789ABCDEF";
      q += "\\x";
      q += kHex[b >> 4];
      q += kHex[b & 15];
    } else {
      q += c;
    }
  }
  return q + "\"";
}

const char* type_name(PieceType type) {
  switch (type) {
    case PieceType::normal:
      return "NORMAL";
    case PieceType::unknown:
      return "UNKNOWN";
    case PieceType::control:
      return "CONTROL";
    case PieceType::user_defined:
      return "USER_DEFINED";
    case PieceType::unused:
      return "UNUSED";
    case PieceType::byte:
      return "BYTE";
  }
  return "?";
}

NormalizerFlags flags_of(const sentencepiece::NormalizerSpec& spec, bool suffix) {
  NormalizerFlags f;
  f.add_dummy_prefix = spec.add_dummy_prefix();
  f.remove_extra_whitespaces = spec.remove_extra_whitespaces();
  f.escape_whitespaces = spec.escape_whitespaces();
  f.treat_whitespace_as_suffix = suffix;
  return f;
}

}  // namespace

PretrainedPipeline read_sentencepiece(std::string_view content, const std::string& source) {
  Proto proto;
  if (content.size() > static_cast<std::size_t>(INT_MAX))
    throw Error(source + ": " + std::to_string(content.size()) +
                " bytes is larger than a protobuf message can be");
  if (!proto.ParseFromArray(content.data(), static_cast<int>(content.size())))
    throw Error(source +
                ": not a SentencePiece model: the protobuf ModelProto does not parse "
                "(a truncated or corrupt .model file, or another format)");
  const auto& trainer = proto.trainer_spec();
  const int count = proto.pieces_size();
  if (count == 0)
    throw Error(source +
                ": the SentencePiece model has no pieces (an empty or foreign protobuf "
                "file?)");
  if (static_cast<std::uint64_t>(count) > std::uint64_t{TokenTable::kMaxId} + 1)
    throw Error(source + ": " + std::to_string(count) + " pieces are more than tokenlab accepts");

  auto vocabulary = std::make_shared<SpmVocabulary>();
  SpmVocabulary& v = *vocabulary;
  v.byte_fallback = trainer.byte_fallback();
  v.pieces.reserve(static_cast<std::size_t>(count));
  v.types.reserve(static_cast<std::size_t>(count));
  v.scores.reserve(static_cast<std::size_t>(count));
  v.byte_of.assign(static_cast<std::size_t>(count), -1);
  std::vector<DoubleArray::Key> normal_keys;
  std::vector<DoubleArray::Key> user_keys;
  std::unordered_map<std::string_view, int> where_is;  // every piece, for duplicates
  where_is.reserve(static_cast<std::size_t>(count));
  std::array<int, 256> byte_piece_at;
  byte_piece_at.fill(-1);
  int unknown_at = -1;

  const auto at = [&](int i) { return source + ": pieces[" + std::to_string(i) + "]"; };
  for (int i = 0; i < count; ++i) {
    const auto& sp = proto.pieces(i);
    const std::string& piece = sp.piece();
    const auto type = static_cast<PieceType>(sp.type());
    if (piece.empty())
      throw Error(at(i) + ": the piece is empty (SentencePiece refuses the model too)");
    // spm_encode runs on with NaN, but every comparison with it is false, so which
    // merge or path wins depends on the order of the search: the model has no
    // defined segmentation, and tokenlab will not guess one.
    if (std::isnan(sp.score()))
      throw Error(at(i) + ": the piece " + quote_piece(piece) +
                  " has the score NaN, which gives the model no defined segmentation");
    v.pieces.push_back(piece);
    v.types.push_back(type);
    v.scores.push_back(sp.score());
  }
  for (int i = 0; i < count; ++i) {
    const std::string& piece = v.pieces[static_cast<std::size_t>(i)];
    const PieceType type = v.types[static_cast<std::size_t>(i)];
    if (const auto [it, fresh] = where_is.emplace(piece, i); !fresh) {
      const PieceType other = v.types[static_cast<std::size_t>(it->second)];
      const auto normal_kind = [](PieceType t) {
        return t == PieceType::normal || t == PieceType::user_defined || t == PieceType::unused;
      };
      if (normal_kind(type) == normal_kind(other))
        throw Error(at(i) + ": the piece " + quote_piece(piece) + " is already pieces[" +
                    std::to_string(it->second) + "] (SentencePiece refuses the model too)");
      throw Error(at(i) + ": the piece " + quote_piece(piece) + " (" + type_name(type) +
                  ") is also pieces[" + std::to_string(it->second) + "] (" + type_name(other) +
                  "); tokenlab does not read models that spell two pieces alike");
    }
    switch (type) {
      case PieceType::normal:
      case PieceType::user_defined:
      case PieceType::unused:
        normal_keys.emplace_back(piece, i);
        if (type == PieceType::unused) v.has_unused = true;
        if (type == PieceType::user_defined) {
          if (piece.find('\0') != std::string::npos)
            throw Error(at(i) + ": the user-defined symbol " + quote_piece(piece) +
                        " holds a NUL byte, which SentencePiece's prefix matcher cuts it at; "
                        "tokenlab does not reproduce that");
          user_keys.emplace_back(piece, i);
        }
        break;
      case PieceType::unknown:
        if (unknown_at >= 0)
          throw Error(at(i) + ": a second unknown piece " + quote_piece(piece) + " after pieces[" +
                      std::to_string(unknown_at) + "] (SentencePiece refuses the model too)");
        unknown_at = i;
        v.reserved.emplace(piece, static_cast<TokenId>(i));
        break;
      case PieceType::control:
        v.reserved.emplace(piece, static_cast<TokenId>(i));
        break;
      case PieceType::byte: {
        if (!v.byte_fallback)
          throw Error(at(i) + ": the byte piece " + quote_piece(piece) +
                      " in a model without byte_fallback (SentencePiece refuses the model too)");
        const int byte = piece_to_byte(piece);
        if (byte < 0)
          throw Error(at(i) + ": " + quote_piece(piece) +
                      " is not a byte piece (<0x00> to <0xFF>)");
        byte_piece_at[static_cast<std::size_t>(byte)] = i;
        v.byte_of[static_cast<std::size_t>(i)] = static_cast<std::int16_t>(byte);
        v.reserved.emplace(piece, static_cast<TokenId>(i));
        break;
      }
      default:
        throw Error(at(i) + ": unknown piece type " + std::to_string(static_cast<int>(type)));
    }
  }
  if (unknown_at < 0)
    throw Error(source +
                ": the model has no unknown piece (type UNKNOWN; SentencePiece refuses "
                "the model too)");
  v.unknown = static_cast<TokenId>(unknown_at);
  if (v.byte_fallback) {
    for (unsigned b = 0; b < 256; ++b) {
      if (byte_piece_at[b] < 0)
        throw Error(source + ": trainer_spec.byte_fallback is set but the byte piece " +
                    byte_fallback_piece(b) + " is missing (SentencePiece refuses the model too)");
      v.byte_ids[b] = static_cast<TokenId>(byte_piece_at[b]);
    }
  }

  const auto model_type = trainer.model_type();
  if (model_type == sentencepiece::TrainerSpec::UNIGRAM) {
    if (normal_keys.empty())
      throw Error(source +
                  ": the unigram model has no NORMAL, USER_DEFINED or UNUSED piece "
                  "(SentencePiece refuses it too)");
    // Darts, which SentencePiece's unigram model looks pieces up in, cuts keys at
    // a NUL byte.
    for (const auto& [piece, id] : normal_keys)
      if (piece.find('\0') != std::string_view::npos)
        throw Error(source + ": pieces[" + std::to_string(id) + "]: the piece " +
                    quote_piece(piece) +
                    " holds a NUL byte, which SentencePiece's unigram trie cuts it at; tokenlab "
                    "does not reproduce that");
  }
  std::sort(normal_keys.begin(), normal_keys.end());
  v.trie.build(normal_keys);
  if (!user_keys.empty()) {
    std::sort(user_keys.begin(), user_keys.end());
    v.user_defined.build(user_keys);
    v.has_user_defined = true;
  }

  PretrainedPipeline pipeline;
  pipeline.format = "sentencepiece";
  pipeline.source = source;
  auto table = std::make_shared<TokenTable>();
  table->reserve(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i)
    table->insert(static_cast<TokenId>(i), v.pieces[static_cast<std::size_t>(i)], source);
  pipeline.tokens = std::move(table);

  const auto& normalizer = proto.normalizer_spec();
  pipeline.normalizers.push_back(std::make_unique<SpmNormalizer>(
      detail::CharsMap(normalizer.precompiled_charsmap(), source + ": normalizer_spec"), vocabulary,
      flags_of(normalizer, trainer.treat_whitespace_as_suffix()), normalizer.name()));

  switch (model_type) {
    case sentencepiece::TrainerSpec::UNIGRAM:
      pipeline.model = std::make_unique<SpmUnigramModel>(vocabulary);
      break;
    case sentencepiece::TrainerSpec::BPE:
      pipeline.model = std::make_unique<SpmBpeModel>(vocabulary);
      break;
    case sentencepiece::TrainerSpec::WORD:
      pipeline.model = std::make_unique<SpmWordModel>(vocabulary);
      break;
    case sentencepiece::TrainerSpec::CHAR:
      pipeline.model = std::make_unique<SpmCharModel>(vocabulary);
      break;
  }
  if (!pipeline.model)
    throw Error(source + ": trainer_spec.model_type " +
                std::to_string(static_cast<int>(model_type)) +
                " is not one tokenlab reads (unigram, BPE, word, char)");

  std::unique_ptr<SpmNormalizer> denormalizer;
  if (proto.has_denormalizer_spec() && !proto.denormalizer_spec().precompiled_charsmap().empty()) {
    const auto& spec = proto.denormalizer_spec();
    denormalizer = std::make_unique<SpmNormalizer>(
        detail::CharsMap(spec.precompiled_charsmap(), source + ": denormalizer_spec"), nullptr,
        flags_of(spec, false), spec.name());
  }
  pipeline.decoders.push_back(
      std::make_unique<SpmDecoder>(vocabulary, trainer.unk_surface(), normalizer.add_dummy_prefix(),
                                   normalizer.remove_extra_whitespaces(), std::move(denormalizer)));
  return pipeline;
}

}  // namespace tokenlab
