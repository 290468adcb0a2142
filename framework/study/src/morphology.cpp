// Gold segmentations and the scores of a tokenizer's boundaries against them
// (morphology.hpp; docs/metrics.md#morphological-alignment).
#include "tokenlab/morphology.hpp"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <sstream>

#include "tokenlab/error.hpp"
#include "tokenlab/parallel.hpp"
#include "tokenlab/utf8.hpp"

namespace tokenlab {

namespace {

double ratio(double a, double b) {
  return b == 0.0 ? 0.0 : a / b;
}
double ratio(std::uint64_t a, std::uint64_t b) {
  return ratio(static_cast<double>(a), static_cast<double>(b));
}

std::string_view trim_line_end(std::string_view line) {
  while (!line.empty() && (line.back() == '\r' || line.back() == '\n')) line.remove_suffix(1);
  return line;
}

// One CSV record's fields (RFC 4180: quotes around a field, "" inside for one quote).
std::vector<std::string> csv_fields(std::string_view line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        fields.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        fields.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.emplace_back();
    } else {
      fields.back() += c;
    }
  }
  return fields;
}

// The gold word of morphs, or a reason why they do not make one.
bool make_gold(const std::string& word, const std::vector<std::string>& morphs, GoldWord& out,
               std::string& why) {
  std::string joined;
  for (const auto& m : morphs) joined += m;
  if (joined != word || morphs.empty()) {
    why = "the morphs spell '" + joined + "', not '" + word + "'";
    return false;
  }
  out.word = word;
  std::size_t at = 0;
  for (std::size_t i = 0; i + 1 < morphs.size(); ++i) {
    at += utf8::count_code_points(morphs[i]);
    if (!morphs[i].empty() && (out.boundaries.empty() || out.boundaries.back() != at))
      out.boundaries.push_back(at);
  }
  // An empty morph adds no boundary; one at either end of the word is none.
  const std::size_t length = utf8::count_code_points(word);
  std::erase_if(out.boundaries, [&](std::size_t b) { return b == 0 || b >= length; });
  return true;
}

void skip(GoldSet& set, std::size_t line, const std::string& why) {
  if (set.skipped++ == 0) set.first_skipped = set.source + ":" + std::to_string(line) + ": " + why;
}

void parse_csv(std::string_view text, GoldSet& set) {
  std::istringstream in{std::string(text)};
  std::string line;
  std::getline(in, line);
  const std::vector<std::string> header = csv_fields(trim_line_end(line));
  const auto column = [&](const char* name) {
    const auto it = std::find(header.begin(), header.end(), name);
    if (it == header.end())
      throw Error(set.source + ":1: a MorphScore CSV needs the columns full_word, pt1 and rest; " +
                  "there is no '" + name + "'");
    return static_cast<std::size_t>(it - header.begin());
  };
  const std::size_t word_at = column("full_word");
  const std::size_t first_at = column("pt1");
  const std::size_t rest_at = column("rest");
  const std::size_t needed = std::max({word_at, first_at, rest_at}) + 1;
  for (std::size_t number = 2; std::getline(in, line); ++number) {
    const std::string_view record = trim_line_end(line);
    if (record.empty()) continue;
    const std::vector<std::string> fields = csv_fields(record);
    if (fields.size() < needed) {
      skip(set, number, "fewer fields than the header");
      continue;
    }
    GoldWord gold;
    std::string why;
    if (!make_gold(fields[word_at], {fields[first_at], fields[rest_at]}, gold, why)) {
      skip(set, number, why);
      continue;
    }
    gold.split_point_only = true;
    gold.split = utf8::count_code_points(fields[first_at]);
    set.words.push_back(std::move(gold));
  }
}

void parse_plain(std::string_view text, GoldSet& set) {
  std::istringstream in{std::string(text)};
  std::string line;
  for (std::size_t number = 1; std::getline(in, line); ++number) {
    const std::string_view record = trim_line_end(line);
    if (record.empty() || record.front() == '#') continue;
    const std::size_t tab = record.find('\t');
    if (tab == std::string_view::npos) {
      skip(set, number, "no tab between the word and its morphs");
      continue;
    }
    std::string_view analysis = record.substr(tab + 1);
    analysis = analysis.substr(0, analysis.find(','));  // the first analysis
    std::vector<std::string> morphs;
    std::istringstream words{std::string(analysis)};
    std::copy(std::istream_iterator<std::string>(words), std::istream_iterator<std::string>(),
              std::back_inserter(morphs));
    GoldWord gold;
    std::string why;
    if (!make_gold(std::string(record.substr(0, tab)), morphs, gold, why)) {
      skip(set, number, why);
      continue;
    }
    gold.morphemes = gold.boundaries.size() + 1;
    if (gold.boundaries.size() == 1) gold.split = gold.boundaries.front();
    set.words.push_back(std::move(gold));
  }
}

// Code point offset of byte offset at in text.
std::size_t code_points_before(std::string_view text, std::size_t at) {
  return utf8::count_code_points(text.substr(0, at));
}

std::string_view without_leading_space(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  return s;
}

}  // namespace

GoldSet parse_gold_segmentations(std::string_view text, const std::string& source) {
  GoldSet set;
  set.source = source;
  const std::string_view first = trim_line_end(text.substr(0, text.find('\n')));
  const std::vector<std::string> header = csv_fields(first);
  const bool csv = first.find('\t') == std::string_view::npos &&
                   std::find(header.begin(), header.end(), "full_word") != header.end();
  set.format = csv ? "morphscore-csv" : "plain";
  if (csv) {
    parse_csv(text, set);
  } else {
    parse_plain(text, set);
  }
  if (set.words.empty())
    throw Error(source + ": no gold segmentation (expected `word<TAB>morph morph ...` lines or " +
                "a MorphScore CSV with full_word, pt1 and rest)" +
                (set.skipped > 0 ? "; " + set.first_skipped : std::string()));
  return set;
}

GoldSet read_gold_segmentations(const std::string& spec) {
  std::string label;
  std::string path = spec;
  if (const std::size_t eq = spec.find('='); eq != std::string::npos && eq > 0) {
    label = spec.substr(0, eq);
    path = spec.substr(eq + 1);
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path + ": cannot read the gold segmentations");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  GoldSet set = parse_gold_segmentations(text, path);
  set.label = label.empty() ? std::filesystem::path(path).stem().string() : label;
  return set;
}

WordBoundaries token_boundaries(const TextEncoder& encoder, std::string_view word,
                                bool leading_space) {
  WordBoundaries result;
  std::vector<TokenId> ids;
  encoder.encode(leading_space ? " " + std::string(word) : std::string(word), ids);
  result.tokens = ids.size();
  const std::string whole = encoder.decode(ids);
  const std::string_view full = without_leading_space(whole);
  const std::size_t length = utf8::count_code_points(word);
  if (full != word && utf8::count_code_points(full) != length) {
    result.aligned = false;
    return result;
  }
  for (std::size_t k = 1; k < ids.size(); ++k) {
    const std::string prefix_text = encoder.decode(std::span<const TokenId>(ids).first(k));
    const std::string_view prefix = without_leading_space(prefix_text);
    // A prefix that is not the start of the whole text ends inside a character
    // (its partial bytes decoded as U+FFFD) or was changed by the decoder.
    if (!full.starts_with(prefix)) continue;
    if (prefix.size() < full.size() &&
        (static_cast<unsigned char>(full[prefix.size()]) & 0xC0) == 0x80)
      continue;
    const std::size_t at = code_points_before(full, prefix.size());
    if (at > 0 && at < length && (result.boundaries.empty() || result.boundaries.back() != at))
      result.boundaries.push_back(at);
  }
  return result;
}

void MorphologyScores::add(const GoldWord& gold, const WordBoundaries& predicted) {
  ++words;
  if (!predicted.aligned) {
    ++unaligned;
    return;
  }
  const auto has = [&](std::size_t b) {
    return std::binary_search(predicted.boundaries.begin(), predicted.boundaries.end(), b);
  };
  if (gold.split_point_only || gold.boundaries.size() == 1) {
    if (predicted.boundaries.empty()) {
      ++excluded_single_token;
    } else {
      ++morph_score_words;
      if (has(gold.split)) ++morph_score_hits;
    }
  }
  if (gold.split_point_only) return;
  ++segmented_words;
  std::uint64_t correct = 0;
  for (const std::size_t b : gold.boundaries) correct += has(b) ? 1 : 0;
  const std::uint64_t p = predicted.boundaries.size();
  const std::uint64_t g = gold.boundaries.size();
  gold_boundaries += g;
  predicted_boundaries += p;
  correct_boundaries += correct;
  tokens += predicted.tokens;
  morphemes += gold.morphemes;
  if (predicted.boundaries == gold.boundaries) ++exact_words;
  if (p > 0) {
    word_precision_sum += ratio(correct, p);
    ++word_precision_count;
  }
  if (g > 0) {
    word_recall_sum += ratio(correct, g);
    ++word_recall_count;
  }
  word_f1_sum += p + g == 0 ? 1.0 : ratio(2 * correct, p + g);
}

double MorphologyScores::boundary_precision() const {
  return ratio(correct_boundaries, predicted_boundaries);
}
double MorphologyScores::boundary_recall() const {
  return ratio(correct_boundaries, gold_boundaries);
}
double MorphologyScores::boundary_f1() const {
  return ratio(2 * correct_boundaries, predicted_boundaries + gold_boundaries);
}
double MorphologyScores::word_precision() const {
  return ratio(word_precision_sum, static_cast<double>(word_precision_count));
}
double MorphologyScores::word_recall() const {
  return ratio(word_recall_sum, static_cast<double>(word_recall_count));
}
double MorphologyScores::word_f1() const {
  return ratio(word_f1_sum, static_cast<double>(segmented_words));
}
double MorphologyScores::exact_share() const {
  return ratio(exact_words, segmented_words);
}
double MorphologyScores::morph_score() const {
  return ratio(morph_score_hits, morph_score_words);
}
double MorphologyScores::tokens_per_morpheme() const {
  return ratio(tokens, morphemes);
}

MorphologyScores score_morphology(const TextEncoder& encoder, const GoldSet& gold,
                                  const MorphologyOptions& options, unsigned threads) {
  std::vector<WordBoundaries> found(gold.words.size());
  parallel_for(gold.words.size(), threads, [&](std::size_t i) {
    found[i] = token_boundaries(encoder, gold.words[i].word, options.leading_space);
  });
  MorphologyScores scores;  // summed in word order: the same at every thread count
  for (std::size_t i = 0; i < gold.words.size(); ++i) scores.add(gold.words[i], found[i]);
  return scores;
}

}  // namespace tokenlab
