// tokenlab diff-vocab: what two vocabularies disagree about. "The vocabulary is
// a photograph of its corpus": the word-start tokens only one of them holds, the
// frequent words of a text that one keeps whole and the other cuts, and how each
// cuts the words a student names.
#include <unicode/uchar.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

#include "cli.hpp"
#include "tokenlab/app/any_model.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/line_reader.hpp"
#include "tokenlab/plugin_registry.hpp"
#include "tokenlab/utf8.hpp"

namespace tokenlab::cli {

namespace {

// A token that starts a word with two letters or more: a word-start mark (▁, or
// a space as tiktoken and byte-level BPE show it) and then letters only.
// Returns its letters.
std::optional<std::string> word_start(std::string_view piece) {
  for (const std::string_view mark : {std::string_view("\u2581"), std::string_view(" ")})
    if (piece.starts_with(mark)) {
      const std::string_view rest = piece.substr(mark.size());
      if (rest.empty() || utf8::find_invalid(rest)) return std::nullopt;
      std::size_t letters = 0;
      for (std::size_t i = 0; i < rest.size(); i += utf8::sequence_length(rest, i)) {
        if (!u_isalpha(static_cast<UChar32>(utf8::decode_at(rest, i)))) return std::nullopt;
        ++letters;
      }
      if (letters < 2) return std::nullopt;
      return std::string(rest);
    }
  return std::nullopt;
}

// The word-start tokens of a vocabulary, in id order (for BPE: the order learned).
std::vector<std::string> word_starts(const TextEncoder& encoder) {
  std::vector<std::string> words;
  std::set<std::string> seen;
  for (TokenId id = 0; id < encoder.vocabulary_size(); ++id)
    if (auto word = word_start(encoder.display_piece(id)); word && seen.insert(*word).second)
      words.push_back(std::move(*word));
  return words;
}

std::size_t token_count(const TextEncoder& encoder, std::string_view word) {
  std::vector<TokenId> ids;
  encoder.encode(word, ids);
  return ids.size();
}

// The words of a text (split at white space, punctuation trimmed off both
// ends), most frequent first, ties alphabetically.
std::vector<std::pair<std::string, std::uint64_t>> frequent_words(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw Error(file + ": cannot read");
  std::map<std::string, std::uint64_t> counts;
  std::string line;
  for (std::size_t number = 1; read_bounded_line(in, line, file, number); ++number) {
    if (utf8::find_invalid(line))
      throw Error(file + ":" + std::to_string(number) + ": not valid UTF-8");
    std::istringstream words(line);
    for (std::string w; words >> w;) {
      const auto cps = utf8::split_code_points(w);
      std::size_t begin = 0;
      std::size_t end = cps.size();
      const auto punctuation = [](std::string_view cp) {
        return u_ispunct(static_cast<UChar32>(utf8::decode_at(cp, 0))) != 0;
      };
      while (begin < end && punctuation(cps[begin])) ++begin;
      while (end > begin && punctuation(cps[end - 1])) --end;
      if (end - begin < 2) continue;
      std::string word;
      for (std::size_t i = begin; i < end; ++i) word += cps[i];
      ++counts[word];
    }
  }
  std::vector<std::pair<std::string, std::uint64_t>> sorted(counts.begin(), counts.end());
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const auto& x, const auto& y) { return x.second > y.second; });
  return sorted;
}

void print_wrapped(const std::vector<std::string>& items) {
  std::string line;
  for (const auto& w : items) {
    if (!line.empty() && utf8::count_code_points(line) + utf8::count_code_points(w) > 76) {
      std::cout << "  " << line << '\n';
      line.clear();
    }
    line += (line.empty() ? "" : " ") + w;
  }
  if (!line.empty()) std::cout << "  " << line << '\n';
}

std::string cut(const TextEncoder& encoder, const std::string& word) {
  std::vector<TokenId> ids;
  encoder.encode(word, ids);
  std::string out;
  for (std::size_t i = 0; i < ids.size(); ++i)
    out += (i ? " " : "") + utf8::replace_invalid(encoder.display_piece(ids[i]));
  return out + "  (" + std::to_string(ids.size()) + ")";
}

}  // namespace

int cmd_diff_vocab(const std::vector<std::string>& args) {
  std::string path_a;
  std::string path_b;
  std::size_t top = 20;
  std::vector<std::string> words;
  std::string text;
  std::vector<std::string> plugin_dirs;
  po::options_description desc("options");
  desc.add_options()("a", po::value(&path_a)->required(), "first model (any format -m takes)")(
      "b", po::value(&path_b)->required(), "second model")(
      "top", ranged(&top, std::size_t{0}, std::size_t{100000})->default_value(20),
      "words to list in each section")("word", po::value(&words)->multitoken(),
                                       "words to show as each model cuts them")(
      "text", po::value(&text),
      "FILE: list its most frequent words that one model keeps whole and the other cuts")(
      "plugin-dir", po::value(&plugin_dirs), "extra plugin directory (repeatable)");
  po::positional_options_description positional;
  positional.add("a", 1).add("b", 1);
  po::variables_map vm;
  if (!parse("diff-vocab", "A B [--top N] [--text FILE] [--word W...]", desc, positional, args, vm))
    return kExitOk;
  PluginRegistry registry;
  load_plugins(registry, plugin_dirs);
  const AnyModel a = load_any_model(path_a, registry);
  const AnyModel b = load_any_model(path_b, registry);
  const std::vector<std::string> starts_a = word_starts(*a.encoder);
  const std::vector<std::string> starts_b = word_starts(*b.encoder);
  const std::set<std::string> set_a(starts_a.begin(), starts_a.end());
  const std::set<std::string> set_b(starts_b.begin(), starts_b.end());
  std::size_t shared = 0;
  for (const auto& w : set_a) shared += set_b.count(w);
  std::cout << "A: " << path_a << " (" << a.kind << ", " << a.encoder->vocabulary_size()
            << " ids)\n"
            << "B: " << path_b << " (" << b.kind << ", " << b.encoder->vocabulary_size()
            << " ids)\n"
            << "tokens that start a word: " << set_a.size() << " in A, " << set_b.size()
            << " in B, " << shared << " in both\n";
  const auto list_only = [&](const char* label, const std::vector<std::string>& mine,
                             const std::set<std::string>& theirs) {
    std::vector<std::string> only;
    for (const auto& w : mine)
      if (!theirs.contains(w) && only.size() < top) only.push_back(w);
    if (only.empty()) return;
    std::cout << "\nword starts only " << label << " has (its first " << only.size()
              << ", in id order):\n";
    print_wrapped(only);
  };
  list_only("A", starts_a, set_b);
  list_only("B", starts_b, set_a);
  if (!text.empty()) {
    const auto frequent = frequent_words(text);
    const auto whole_in = [&](const TextEncoder& one, const TextEncoder& other, const char* l1,
                              const char* l2) {
      std::vector<std::string> found;
      for (const auto& [word, count] : frequent) {
        if (found.size() >= top) break;
        const std::size_t mine = token_count(one, word);
        const std::size_t theirs = token_count(other, word);
        if (mine == 1 && theirs >= 3) found.push_back(word + " (" + std::to_string(theirs) + ")");
      }
      std::cout << "\nfrequent words of " << text << " that " << l1 << " keeps whole and " << l2
                << " cuts in 3 or more (" << l2 << "'s tokens):\n";
      if (found.empty()) std::cout << "  none\n";
      print_wrapped(found);
    };
    whole_in(*a.encoder, *b.encoder, "A", "B");
    whole_in(*b.encoder, *a.encoder, "B", "A");
  }
  if (!words.empty()) {
    std::size_t width = 4;
    for (const auto& w : words) width = std::max(width, utf8::count_code_points(w));
    std::cout << "\nhow each cuts the words (tokens):\n";
    for (const auto& w : words) {
      const std::string pad(width - utf8::count_code_points(w), ' ');
      std::cout << "  " << w << pad << "  A: " << cut(*a.encoder, w) << '\n'
                << "  " << std::string(width, ' ') << "  B: " << cut(*b.encoder, w) << '\n';
    }
  }
  return kExitOk;
}

}  // namespace tokenlab::cli
