// TrainerInterface::LoadSentences and SplitSentencesByWhitespace
// (trainer_interface.cc), SplitIntoWords (model_interface.cc).
#include <algorithm>
#include <array>
#include <charconv>
#include <fstream>
#include <memory>
#include <random>
#include <unordered_map>

#include "sentencepiece/internal.hpp"
#include "sentencepiece/normalizer.hpp"
#include "sentencepiece/training/training.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/parallel.hpp"
#include "tokenlab/utf8.hpp"

namespace tokenlab::sentencepiece_detail::training {
namespace {

// SentenceSelector: all lines, the first input_sentence_size, or a reservoir
// sample of that many drawn as random::ReservoirSampler draws it (std::mt19937
// seeded with 12345678, std::uniform_int_distribution<uint64>).
class Selector {
 public:
  Selector(std::vector<Sentence>& out, const TrainerSpec& spec)
      : out_(out), size_(spec.input_sentence_size()), shuffle_(spec.shuffle_input_sentence()) {}

  // false: enough sentences, stop reading.
  bool add(Sentence&& s) {
    ++total_;
    if (size_ == 0 || (!shuffle_ && out_.size() < size_)) {
      out_.push_back(std::move(s));
      return size_ == 0 || out_.size() < size_;
    }
    if (out_.size() < size_) {
      out_.push_back(std::move(s));
    } else {
      std::uniform_int_distribution<std::uint64_t> dist(0, total_ - 1);
      if (const std::uint64_t n = dist(engine_); n < out_.size()) out_[n] = std::move(s);
    }
    return true;
  }
  [[nodiscard]] std::uint64_t total() const noexcept { return total_; }

 private:
  std::vector<Sentence>& out_;
  std::uint64_t size_;
  bool shuffle_;
  std::uint64_t total_ = 0;
  std::mt19937 engine_{12345678};
};

// Reads the files' lines as MultiFileSentenceIterator and the loop of
// LoadSentences do (std::getline: "\r" is kept).
std::vector<Sentence> read_lines(const std::vector<std::string>& files, const TrainerSpec& spec,
                                 const Note& note) {
  std::vector<Sentence> sentences;
  Selector selector(sentences, spec);
  const bool tsv = spec.input_format() == "tsv";
  std::uint64_t too_long = 0;
  for (const std::string& file : files) {
    std::ifstream in(file, std::ios::binary);
    if (!in) throw Error(file + ": cannot open the training text");
    std::string line;
    for (std::uint64_t number = 1; std::getline(in, line); ++number) {
      Sentence s{std::move(line), 1};
      if (tsv) {
        const std::size_t tab = s.text.find('\t');
        const std::string count = tab == std::string::npos ? "" : s.text.substr(tab + 1);
        const auto [end, ec] = std::from_chars(count.data(), count.data() + count.size(), s.count);
        if (tab == std::string::npos || count.find('\t') != std::string::npos)
          throw Error(file + ":" + std::to_string(number) +
                      ": input_format=tsv needs word<TAB>count lines");
        if (ec != std::errc() || end != count.data() + count.size() || s.count < 1)
          throw Error(file + ":" + std::to_string(number) + ": bad count \"" + count + "\"");
        s.text.resize(tab);
      }
      if (s.text.empty()) continue;
      if (s.text.size() > static_cast<std::size_t>(spec.max_sentence_length())) {
        ++too_long;
        continue;
      }
      if (s.text.find(kUNKStr) != std::string::npos) continue;  // reserved character
      if (!selector.add(std::move(s))) return sentences;
    }
    if (in.bad()) throw Error(file + ": read error");
  }
  if (note) {
    if (too_long > 0)
      note("skipped " + std::to_string(too_long) + " lines longer than max_sentence_length (" +
           std::to_string(spec.max_sentence_length()) + " bytes)");
    if (sentences.size() != selector.total())
      note("sampled " + std::to_string(sentences.size()) + " of " +
           std::to_string(selector.total()) + " sentences");
  }
  return sentences;
}

// PrefixMatcher::GlobalReplace with the meta pieces: each longest match becomes "\t".
class MetaReplacer {
 public:
  explicit MetaReplacer(const std::map<int, MetaPiece>& meta) {
    for (const auto& [id, m] : meta) {
      pieces_.push_back(m.piece);
      first_[static_cast<unsigned char>(m.piece[0])] = true;
    }
  }
  void apply(std::string& s) const {
    if (std::none_of(s.begin(), s.end(),
                     [&](char c) { return first_[static_cast<unsigned char>(c)]; }))
      return;
    std::string out;
    for (std::size_t i = 0; i < s.size();) {
      std::size_t best = 0;
      if (first_[static_cast<unsigned char>(s[i])])
        for (const std::string& p : pieces_)
          if (p.size() > best && s.compare(i, p.size(), p) == 0) best = p.size();
      if (best != 0) {
        out += '\t';
        i += best;
      } else {
        const std::size_t n = char_length_at(s, i);
        out.append(s, i, n);
        i += n;
      }
    }
    s.swap(out);
  }

 private:
  std::vector<std::string> pieces_;
  std::array<bool, 256> first_{};
};

void normalize_all(std::vector<Sentence>& sentences, const sentencepiece::ModelProto& proto,
                   const std::map<int, MetaPiece>& meta, unsigned threads) {
  const auto& spec = proto.normalizer_spec();
  NormalizerFlags flags;
  flags.add_dummy_prefix = spec.add_dummy_prefix();
  flags.remove_extra_whitespaces = spec.remove_extra_whitespaces();
  flags.escape_whitespaces = spec.escape_whitespaces();
  flags.treat_whitespace_as_suffix = proto.trainer_spec().treat_whitespace_as_suffix();
  // The trainer's Normalizer has no user-defined symbols matcher: they are cut
  // out by the meta-piece replacement that follows.
  const SpmNormalizer normalizer(
      detail::CharsMap(spec.precompiled_charsmap(), "template model: normalizer_spec"), nullptr,
      flags, spec.name());
  const MetaReplacer replacer(meta);
  constexpr std::size_t kChunk = 512;
  parallel_for((sentences.size() + kChunk - 1) / kChunk, threads, [&](std::size_t chunk) {
    std::string out;
    const std::size_t end = std::min(sentences.size(), (chunk + 1) * kChunk);
    for (std::size_t i = chunk * kChunk; i < end; ++i) {
      normalizer.normalize(sentences[i].text, out);
      sentences[i].text.swap(out);
      replacer.apply(sentences[i].text);
    }
  });
  for (const Sentence& s : sentences)
    if (s.text.find(' ') != std::string::npos)
      throw Error(
          "SentencePiece training: a normalized sentence holds a space (escape_whitespaces "
          "is false); spm_train refuses such text");
  // Empty sentences go as LoadSentences drops them, swapped with the last (which
  // is not looked at again): the order of the sentences is the order in which
  // the BPE trainer meets characters and pairs, and so its hash map's order.
  for (std::size_t i = 0; i < sentences.size(); ++i) {
    if (!sentences[i].text.empty()) continue;
    std::swap(sentences[i], sentences.back());
    sentences.pop_back();
  }
}

bool valid_code_point(char32_t c) noexcept {
  return (c < 0xD800 || (c > 0xDFFF && c <= 0x10FFFF));
}

}  // namespace

std::u32string decode_utf8(std::string_view text) {
  std::u32string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const utf8::Sequence s = utf8::decode_sequence(text, i);
    out.push_back(s.length == 0 ? U'\uFFFD' : s.code_point);
    i += s.length == 0 ? 1 : s.length;
  }
  return out;
}

void append_utf8(char32_t c, std::string& out) {
  utf8::append(out, c);
}

namespace {

// The character counts and the alphabet (required_chars_) of LoadSentences.
std::vector<std::pair<char32_t, std::int64_t>> choose_alphabet(
    const std::vector<Sentence>& sentences, const TrainerSpec& spec, unsigned threads) {
  using Counts = std::unordered_map<char32_t, std::pair<bool, std::int64_t>>;
  const unsigned workers = std::max(1u, threads);
  std::vector<Counts> partial(workers);
  std::vector<std::int64_t> partial_all(workers, 0);
  constexpr std::size_t kChunk = 1024;
  parallel_for_workers((sentences.size() + kChunk - 1) / kChunk, workers,
                       [&](unsigned w, std::size_t chunk) {
                         const std::size_t end = std::min(sentences.size(), (chunk + 1) * kChunk);
                         for (std::size_t i = chunk * kChunk; i < end; ++i) {
                           const Sentence& s = sentences[i];
                           for (const char32_t c : decode_utf8(s.text)) {
                             if (!valid_code_point(c) || c == 0) continue;
                             partial[w][c].second += s.count;
                             partial_all[w] += s.count;
                           }
                         }
                       });
  Counts counts;
  std::int64_t all = 0;
  for (const char32_t c : decode_utf8(spec.required_chars())) {
    if (!valid_code_point(c)) throw Error("training: required_chars holds an invalid code point");
    if (c != 0) counts[c].first = true;
  }
  for (unsigned w = 0; w < workers; ++w) {
    for (const auto& [c, v] : partial[w]) counts[c].second += v.second;
    all += partial_all[w];
  }
  std::vector<std::pair<char32_t, std::pair<bool, std::int64_t>>> sorted(counts.begin(),
                                                                         counts.end());
  std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
    return a.second > b.second || (a.second == b.second && a.first < b.first);
  });
  std::vector<std::pair<char32_t, std::int64_t>> alphabet;
  std::int64_t accumulated = 0;
  for (const auto& [c, v] : sorted) {
    // As spm: the share is a float compared with the float flag.
    const auto coverage =
        static_cast<float>(1.0 * static_cast<double>(accumulated) / static_cast<double>(all));
    if (coverage >= spec.character_coverage()) break;
    accumulated += v.second;
    if (c == kUPPBoundaryChar) continue;  // the boundary (meta pieces, tabs) is never a piece
    alphabet.emplace_back(c, v.second);
  }
  // Sorted(required_chars_): count descending, then code point.
  std::sort(alphabet.begin(), alphabet.end(), [](const auto& a, const auto& b) {
    return a.second > b.second || (a.second == b.second && a.first < b.first);
  });
  return alphabet;
}

// Characters outside the alphabet become kUNKChar.
void replace_unknown(std::vector<Sentence>& sentences,
                     const std::vector<std::pair<char32_t, std::int64_t>>& alphabet,
                     unsigned threads) {
  std::vector<bool> known(0x110000, false);
  for (const auto& [c, n] : alphabet) known[c] = true;
  constexpr std::size_t kChunk = 1024;
  parallel_for((sentences.size() + kChunk - 1) / kChunk, threads, [&](std::size_t chunk) {
    const std::size_t end = std::min(sentences.size(), (chunk + 1) * kChunk);
    std::string out;
    for (std::size_t i = chunk * kChunk; i < end; ++i) {
      out.clear();
      for (const char32_t c : decode_utf8(sentences[i].text))
        append_utf8(c < known.size() && known[c] ? c : kUNKChar, out);
      sentences[i].text.swap(out);
    }
  });
}

}  // namespace

TrainingText load_sentences(const sentencepiece::ModelProto& proto,
                            const std::map<int, MetaPiece>& meta,
                            const std::vector<std::string>& files, unsigned threads,
                            bool mark_unknown, const Note& note) {
  const TrainerSpec& spec = proto.trainer_spec();
  if (files.empty()) throw Error("training: no training text given");
  TrainingText text;
  text.sentences = read_lines(files, spec, note);
  if (text.sentences.empty()) throw Error("training: the training text has no usable line");
  normalize_all(text.sentences, proto, meta, threads);
  text.required_chars = choose_alphabet(text.sentences, spec, threads);
  if (mark_unknown) replace_unknown(text.sentences, text.required_chars, threads);
  const std::size_t needed = text.required_chars.size() + meta.size();
  if (needed > static_cast<std::size_t>(spec.vocab_size()))
    throw Error("training: vocab_size " + std::to_string(spec.vocab_size()) +
                " is smaller than the required characters and meta pieces (" +
                std::to_string(needed) + "); increase vocab_size or decrease character_coverage");
  if (note)
    note("loaded " + std::to_string(text.sentences.size()) + " sentences, alphabet of " +
         std::to_string(text.required_chars.size()) + " characters");
  return text;
}

std::vector<Sentence> split_by_whitespace(const std::vector<Sentence>& sentences,
                                          const TrainerSpec& spec) {
  const bool suffix = spec.treat_whitespace_as_suffix();
  const bool ws_only = spec.allow_whitespace_only_pieces();
  std::unordered_map<std::string_view, std::int64_t> tokens;
  const auto add = [&](std::string_view w, std::int64_t n) { tokens[w] += n; };
  for (const Sentence& s : sentences) {
    const std::string_view text = s.text;
    std::size_t start = 0, length = 0;
    bool open = false, in_ws = false;
    for (std::size_t i = 0; i < text.size();) {
      const std::size_t n = char_length_at(text, i);
      const bool is_ws = text.substr(i, n) == kSpaceSymbol;
      if (suffix) {
        if (!open) start = i, length = 0, open = true;
        if (is_ws) {
          in_ws = true;
        } else if (in_ws) {
          if (ws_only) add(text.substr(start, length), s.count), start = i, length = 0;
          in_ws = false;
        }
        length += n;
        if (i + n < text.size() && is_ws && !ws_only)
          add(text.substr(start, length), s.count), start = i + n, length = 0;
      } else {
        if (i == 0 || (is_ws && (!in_ws || !ws_only))) {
          if (open) add(text.substr(start, length), s.count);
          start = i, length = 0, open = true, in_ws = true;
        }
        if (in_ws && !is_ws) in_ws = false;
        length += n;
      }
      i += n;
    }
    if (open) add(text.substr(start, length), s.count);
  }
  std::vector<Sentence> words;
  words.reserve(tokens.size());
  for (const auto& [w, n] : tokens) words.push_back({std::string(w), n});
  std::sort(words.begin(), words.end(), [](const Sentence& a, const Sentence& b) {
    return a.count > b.count || (a.count == b.count && a.text < b.text);
  });
  return words;
}

}  // namespace tokenlab::sentencepiece_detail::training
