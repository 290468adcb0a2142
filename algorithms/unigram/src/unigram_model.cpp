#include "tokenlab/unigram/unigram_model.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <functional>

#include "tokenlab/alphabet.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/model_description.hpp"
#include "tokenlab/option_reader.hpp"
#include "tokenlab/segmenter_support.hpp"
#include "tokenlab/unigram/unigram_trainer.hpp"
#include "tokenlab/vocabulary_layout.hpp"
#include "tokenlab/word_cache.hpp"
#include "tokenlab/word_counts.hpp"

namespace tokenlab::unigram {

// The model payload: what save() writes and load() validates before committing.
struct Payload {
  Vocabulary vocabulary;
  std::vector<double> scores;  // one per piece
  bool byte_fallback = false;
  std::uint32_t byte_base = 0;  // id of <0x00> when byte_fallback

  template <class Archive>
  void serialize(Archive& ar, unsigned /*version*/) {
    ar& BOOST_SERIALIZATION_NVP(vocabulary) & BOOST_SERIALIZATION_NVP(scores) &
        BOOST_SERIALIZATION_NVP(byte_fallback) & BOOST_SERIALIZATION_NVP(byte_base);
  }
};

}  // namespace tokenlab::unigram

// Bump when Payload's fields change, and have serialize() read the older versions too.
BOOST_CLASS_VERSION(tokenlab::unigram::Payload, 0)

namespace tokenlab::unigram {

namespace {

// 3: a payload archive (payload.hpp); 2 was a hand-written tagged layout, 1 a bare
// Boost archive.
constexpr std::uint32_t kFormatVersion = 3;
constexpr double kUnknownPenalty = 10.0;

// Recent words, per thread and model (tokenlab/word_cache.hpp).
using Cache =
    WordCache<WordCacheShape{.max_word_bytes = 48, .max_ids = 14, .slots = 4096, .models = 4}>;

struct Scratch {
  std::vector<double> best;
  std::vector<std::uint32_t> from;
  std::vector<std::uint32_t> id;
  std::vector<std::uint32_t> path;
  Lattice lattice;
};

Scratch& scratch() {
  thread_local Scratch s;
  return s;
}

// Length of the UTF-8 sequence at pos; an ill-formed byte counts as a character
// of its own, so any input segments (it then becomes <unk> or a byte token).
inline std::size_t char_length(std::string_view s, std::size_t pos) noexcept {
  const auto c = static_cast<unsigned char>(s[pos]);
  const std::size_t len = c < 0x80           ? 1
                          : (c >> 5) == 0x6  ? 2
                          : (c >> 4) == 0xE  ? 3
                          : (c >> 3) == 0x1E ? 4
                                             : 1;
  if (pos + len > s.size()) return 1;
  for (std::size_t i = 1; i < len; ++i)
    if ((static_cast<unsigned char>(s[pos + i]) & 0xC0) != 0x80) return 1;
  return len;
}

}  // namespace

UnigramSegmenter::UnigramSegmenter() {
  vocabulary_.add_special("<unk>");
  vocabulary_.set_unknown(0);
  scores_.assign(1, 0.0);
  rebuild();
}

UnigramSegmenter::~UnigramSegmenter() = default;

void UnigramSegmenter::rebuild() {
  const std::size_t first = vocabulary_.special_count() + (byte_fallback_ ? 256 : 0);
  std::vector<std::pair<std::string_view, std::uint32_t>> entries;
  double lowest = 0.0;
  bool any = false;
  for (std::size_t id = first; id < vocabulary_.size(); ++id) {
    entries.emplace_back(vocabulary_.piece(static_cast<TokenId>(id)),
                         static_cast<std::uint32_t>(id));
    lowest = any ? std::min(lowest, scores_[id]) : scores_[id];
    any = true;
  }
  trie_ = PieceTrie(std::move(entries));
  unknown_score_ = lowest - kUnknownPenalty;
  unknown_ = *vocabulary_.unknown_id();
  model_id_ = new_model_identity();
}

void UnigramSegmenter::set_model(const std::vector<std::string>& specials,
                                 const std::vector<std::pair<std::string, double>>& pieces,
                                 bool byte_fallback) {
  Vocabulary vocabulary;
  lay_out_special_tokens(vocabulary, specials, LayoutRule{.plugin = "unigram"});
  TokenId byte_base = 0;
  if (byte_fallback) {
    byte_base = static_cast<TokenId>(vocabulary.size());
    for (unsigned b = 0; b < 256; ++b) vocabulary.add(byte_fallback_piece(b));
  }
  std::vector<double> scores(vocabulary.size(), 0.0);
  for (const auto& [piece, score] : pieces) {
    if (piece.empty() || !std::isfinite(score))
      throw Error("unigram: empty piece or non-finite score");
    vocabulary.add(piece);
    scores.push_back(score);
  }
  vocabulary_ = std::move(vocabulary);
  scores_ = std::move(scores);
  byte_fallback_ = byte_fallback;
  byte_base_ = byte_base;
  rebuild();
}

void UnigramSegmenter::emit(std::string_view word, std::uint32_t begin, std::uint32_t end,
                            std::uint32_t id, std::vector<TokenId>& out) const {
  if (id != unknown_edge_id()) {
    out.push_back(id);
  } else if (byte_fallback_) {
    for (std::uint32_t b = begin; b < end; ++b)
      out.push_back(byte_base_ + static_cast<unsigned char>(word[b]));
  } else {
    out.push_back(unknown_);
  }
}

void UnigramSegmenter::encode(std::string_view word, std::vector<TokenId>& out) const {
  if (word.empty()) return;
  Cache::encode(model_id_, word, out,
                [this](std::string_view w, std::vector<TokenId>& o) { encode_uncached(w, o); });
}

void UnigramSegmenter::encode_uncached(std::string_view word, std::vector<TokenId>& out) const {
  const std::size_t n = word.size();
  Scratch& s = scratch();
  s.best.assign(n + 1, kNegativeInfinity);
  s.from.resize(n + 1);
  s.id.resize(n + 1);
  s.best[0] = 0.0;
  for (std::size_t pos = 0; pos < n;) {
    const std::size_t clen = char_length(word, pos);
    const double base = s.best[pos];
    if (base != kNegativeInfinity) {
      bool single = false;
      trie_.common_prefixes(word, pos, [&](std::size_t len, std::uint32_t id) {
        if (len == clen) single = true;
        const double score = base + scores_[id];
        if (score > s.best[pos + len]) {
          s.best[pos + len] = score;
          s.from[pos + len] = static_cast<std::uint32_t>(pos);
          s.id[pos + len] = id;
        }
      });
      if (!single && base + unknown_score_ > s.best[pos + clen]) {
        s.best[pos + clen] = base + unknown_score_;
        s.from[pos + clen] = static_cast<std::uint32_t>(pos);
        s.id[pos + clen] = unknown_edge_id();
      }
    }
    pos += clen;
  }
  s.path.clear();
  for (std::size_t pos = n; pos > 0; pos = s.from[pos])
    s.path.push_back(static_cast<std::uint32_t>(pos));
  const std::size_t start = out.size();
  for (std::size_t k = s.path.size(); k-- > 0;) {
    const std::uint32_t end = s.path[k];
    const std::uint32_t id = s.id[end];
    // Runs of unknown characters become one <unk>, as in SentencePiece.
    if (id == unknown_edge_id() && !byte_fallback_ && out.size() > start && out.back() == unknown_)
      continue;
    emit(word, s.from[end], end, id, out);
  }
}

void UnigramSegmenter::build_lattice(std::string_view word, Lattice& lattice) const {
  lattice.reset(static_cast<std::uint32_t>(word.size()));
  for (std::size_t pos = 0; pos < word.size();) {
    const std::size_t clen = char_length(word, pos);
    bool single = false;
    trie_.common_prefixes(word, pos, [&](std::size_t len, std::uint32_t id) {
      if (len == clen) single = true;
      lattice.add(static_cast<std::uint32_t>(pos), static_cast<std::uint32_t>(pos + len), id,
                  scores_[id]);
    });
    if (!single)
      lattice.add(static_cast<std::uint32_t>(pos), static_cast<std::uint32_t>(pos + clen),
                  unknown_edge_id(), unknown_score_);
    pos += clen;
  }
  lattice.finish();
}

void UnigramSegmenter::encode_sampled(std::string_view word, const SamplingOptions& options,
                                      std::uint64_t& rng_state, std::vector<TokenId>& out) const {
  if (!(std::isfinite(options.alpha) && options.alpha >= 0.0))
    throw Error("unigram: sampling alpha must be a finite number >= 0 (got " +
                std::to_string(options.alpha) + ")");
  if (word.empty()) return;
  Scratch& s = scratch();
  build_lattice(word, s.lattice);
  sample_path(s.lattice, options.alpha, rng_state, s.path);
  if (s.path.empty()) {  // no path at all cannot happen (unknown edges), but never drop text
    encode(word, out);
    return;
  }
  const std::size_t start = out.size();
  for (const auto k : s.path) {
    const auto& e = s.lattice.edges[k];
    if (e.id == unknown_edge_id() && !byte_fallback_ && out.size() > start &&
        out.back() == unknown_)
      continue;
    emit(word, e.begin, e.end, e.id, out);
  }
}

std::vector<ScoredSegmentation> UnigramSegmenter::nbest(std::string_view word,
                                                        std::size_t k) const {
  std::vector<ScoredSegmentation> result;
  if (word.empty()) {
    if (k > 0) result.push_back({});
    return result;
  }
  Lattice lattice;
  build_lattice(word, lattice);
  for (const auto& path : nbest_paths(lattice, k)) {
    ScoredSegmentation seg;
    seg.score = path.score;
    for (const auto e : path.edges) {
      const auto& edge = lattice.edges[e];
      if (edge.id == unknown_edge_id() && !byte_fallback_ && !seg.ids.empty() &&
          seg.ids.back() == unknown_)
        continue;
      emit(word, edge.begin, edge.end, edge.id, seg.ids);
    }
    result.push_back(std::move(seg));
  }
  return result;
}

std::string UnigramSegmenter::decode(std::span<const TokenId> ids) const {
  std::string out;
  for (const TokenId id : ids) {
    if (id >= vocabulary_.size())
      throw Error("unigram: token id " + std::to_string(id) + " is outside the vocabulary (size " +
                  std::to_string(vocabulary_.size()) + ")");
    if (byte_fallback_ && id >= byte_base_ && id < byte_base_ + 256) {
      out.push_back(static_cast<char>(id - byte_base_));
    } else if (id == unknown_) {
      out += kUnknownSurface;
    } else if (!vocabulary_.is_special(id)) {
      out += vocabulary_.piece(id);
    }
  }
  return out;
}

void UnigramSegmenter::save(std::ostream& out) const {
  const Payload payload{.vocabulary = vocabulary_,
                        .scores = scores_,
                        .byte_fallback = byte_fallback_,
                        .byte_base = byte_base_};
  PayloadOArchive ar(out, "unigram", kFormatVersion);
  ar << boost::serialization::make_nvp("model", payload);
}

void UnigramSegmenter::load(std::istream& in) {
  PayloadIArchive ar(in, "unigram", kFormatVersion);
  Payload payload;
  ar >> boost::serialization::make_nvp("model", payload);
  ar.finish();
  Vocabulary& vocabulary = payload.vocabulary;
  std::vector<double>& scores = payload.scores;
  const bool byte_fallback = payload.byte_fallback;
  const std::uint32_t byte_base = payload.byte_base;
  if (scores.size() != vocabulary.size())
    ar.fail(std::to_string(scores.size()) + " scores for " + std::to_string(vocabulary.size()) +
            " pieces");
  if (!vocabulary.unknown_id()) ar.fail("no unknown token");
  if (byte_fallback) {
    if (byte_base != vocabulary.special_count() || vocabulary.size() < byte_base + 256ull)
      ar.fail("byte tokens missing");
    for (unsigned b = 0; b < 256; ++b)
      if (vocabulary.piece(byte_base + b) != byte_fallback_piece(b))
        ar.fail("byte token " + byte_fallback_piece(b) + " misplaced");
  }
  for (std::size_t id = vocabulary.special_count(); id < vocabulary.size(); ++id)
    if (!std::isfinite(scores[id]) || vocabulary.piece(static_cast<TokenId>(id)).empty())
      ar.fail("bad piece or score at id " + std::to_string(id));
  vocabulary_ = std::move(vocabulary);
  scores_ = std::move(scores);
  byte_fallback_ = byte_fallback;
  byte_base_ = byte_base;
  rebuild();
}

void UnigramSegmenter::export_model(std::ostream& out, const std::string& format) const {
  if (format != kModelDescriptionFormat)
    throw Error("unigram: cannot export format '" + format + "'");
  ModelDescription m = describe_vocabulary(ModelKind::unigram, vocabulary_);
  m.byte_fallback = byte_fallback_;
  m.scores = scores_;
  write_model_description(out, m);
}

}  // namespace tokenlab::unigram
