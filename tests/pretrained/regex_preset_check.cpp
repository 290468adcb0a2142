// regex_preset_check: the hand-made matchers of the GPT-style presets
// (framework/text/src/preset_matchers.cpp) against ICU, which is what Regex runs for
// every other pattern; and the matcher of DeepSeek V3's sequence of three
// Isolated splits (kDeepSeekV3Splits) against the three patterns run on ICU one
// after another, each on the pieces of the one before, as HF's Sequence does.
//
// usage: tokenlab_regex_preset_check [--stress LINES] [--seed N] [--codepoints]
//                                    [--max-bytes N] [--show N] [--unicode V] PATH...
//
// PATH is a text file, or a directory whose *.txt files are read in name order;
// each line, with its '\n', is one text, so that the patterns' newline
// alternatives are exercised. --max-bytes reads only the first N bytes of each
// file. --stress adds LINES random short texts (fixed seed, --seed) drawn from a
// pool of characters where the patterns' classes meet: letters of each case
// category, marks, numbers of all three kinds, the White_Space characters, case
// folding of the contractions; and a tenth as many with ill-formed UTF-8 in them,
// which the matchers leave to ICU. --codepoints adds one text per code point with
// that code point in the contexts that matter (after an apostrophe, between
// letters, digits and spaces). --unicode library (the default) or 16.0: the
// character classes both sides take (tokenlab/unicode_version.hpp), which for
// 16.0 means the matchers' second class table on one side and the rewritten
// ICU pattern on the other.
//
// For each preset (gpt2, cl100k, qwen2, o200k, deepseek_v3) and each source, it prints
//   SOURCE PRESET lines=N differing=D icu_MB/s=X preset_MB/s=Y
// and the first N differing texts of each (--show, default 3) on stderr.
// ICU's spans come from PretrainedRegex on the preset wrapped in (?:...), which
// changes nothing in the matches but keeps the pattern from being recognised as
// a preset, so both go through the same to_icu_syntax and for_each_match.
// The sequence's matcher runs only on well-formed UTF-8 (the fused encoder's
// input): it skips the texts that are not.
// Exit status: 0 when nothing differs, 1 when something does, 2 on a usage or
// I/O error, 77 when a PATH does not exist (a skipped test).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/regex_spans.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/pretrained/components.hpp"
#include "tokenlab/utf8.hpp"

namespace {

namespace fs = std::filesystem;
using tokenlab::test::Spans;
using tokenlab::test::spans_of;

struct Source {
  std::string name;
  std::vector<std::string> texts;
  std::size_t bytes = 0;
};

Source read_source(const fs::path& path, std::size_t max_bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw tokenlab::Error(path.string() + ": cannot open");
  std::string all(std::min<std::uintmax_t>(fs::file_size(path), max_bytes), '\0');
  in.read(all.data(), static_cast<std::streamsize>(all.size()));
  all.resize(static_cast<std::size_t>(in.gcount()));
  Source source{path.string(), {}, all.size()};
  std::size_t start = 0;
  while (start < all.size()) {
    std::size_t end = all.find('\n', start);
    end = end == std::string::npos ? all.size() : end + 1;
    source.texts.emplace_back(all, start, end - start);
    start = end;
  }
  return source;
}

// Where the patterns' classes meet: each case category of letters (Lm, Lo and M
// are in both of o200k's word classes), marks of the three kinds, Nd/Nl/No, every
// kind of White_Space (U+0085 and U+000B are not ICU's \s), characters that fold
// to a contraction's letter (U+017F) or near one (U+212A, U+FB06, U+0130), and
// characters outside the BMP. Spaces and apostrophes come more often.
const std::vector<char32_t>& stress_pool() {
  static const std::vector<char32_t> pool = [] {
    std::vector<char32_t> chars;
    for (char c : std::string_view("abdelmrstvxzABDELMRSTVXZ019!.,-\"()/_#"))
      chars.push_back(static_cast<unsigned char>(c));
    for (int i = 0; i < 6; ++i) chars.insert(chars.end(), {U' ', U'\''});
    chars.insert(
        chars.end(),
        {U'\r', U'\n', U'\n', U'\t', U'\v', U'\f', 0x85, 0xA0, 0x1680, 0x2000, 0x2028, 0x2029,
         0x202F, 0x3000, 0x2019, 0x0301, 0x0903, 0x20DD, 0xFE0F, 0x02B0, 0x3005, 0x01C5, 0x05D0,
         0x0627, 0x4E2D, 0x3042, 0x00C0, 0x03A3, 0x00E9, 0x00DF, 0x2160, 0x3007, 0x00B2, 0x00BD,
         0x0660, 0x0966, 0xFF11, 0x017F, 0x212A, 0xFB06, 0x0130, 0x1F600, 0x1F3FD, 0x200D, 0xFFFD,
         0x0378, 0xE000, 0x10400, 0x1D400, 0x20000, 0x0000,
         // DeepSeek V3's: the ends of its two ranges and what lies in
         // them that is not a letter (kana marks Mn and Sk, U+30A0 Pd,
         // U+30FB Po), punctuation and symbols beyond ASCII, controls.
         0x3040, 0x3041, 0x3099, 0x309B, 0x309F, 0x30A0, 0x30FB, 0x30FC, 0x30FF, 0x3100, 0x303F,
         0x4E00, 0x9FA5, 0x9FA6, 0x00A7, 0x20AC, 0x00B4, 0x2026, 0x0001, 0x001F, 0x00AD});
    return chars;
  }();
  return pool;
}

// With ill_formed, one character in 16 is replaced by bytes that are not UTF-8,
// which the matchers leave to ICU.
Source stress_source(std::size_t lines, std::uint64_t seed, bool ill_formed) {
  static constexpr std::string_view kIllFormed[] = {
      "\x80",     "\xFF",         "\xC0\xAF",         "\xC3",
      "\xE2\x82", "\xED\xA0\x80", "\xF4\x90\x80\x80", "\xF0\x9F"};
  // The engine's output is fixed by the standard; distributions are not, so the
  // draws are taken by modulo.
  std::mt19937_64 engine(seed);
  const auto& pool = stress_pool();
  Source source{std::string(ill_formed ? "stress-ill-formed" : "stress") +
                    "(seed=" + std::to_string(seed) + ")",
                {},
                0};
  source.texts.reserve(lines);
  for (std::size_t i = 0; i < lines; ++i) {
    std::string text;
    const std::size_t length = 1 + engine() % 16;
    for (std::size_t k = 0; k < length; ++k) {
      if (ill_formed && engine() % 16 == 0) {
        text += kIllFormed[engine() % std::size(kIllFormed)];
        continue;
      }
      tokenlab::utf8::append(text, pool[engine() % pool.size()]);
    }
    source.bytes += text.size();
    source.texts.push_back(std::move(text));
  }
  return source;
}

Source codepoint_source() {
  Source source{"codepoints", {}, 0};
  const auto put = [](std::string& text, std::string_view before, char32_t c,
                      std::string_view after) {
    text += before;
    tokenlab::utf8::append(text, c);
    text += after;
  };
  for (char32_t c = 1; c <= 0x10FFFF; ++c) {
    if (c >= 0xD800 && c <= 0xDFFF) continue;
    std::string text;
    put(text, "'", c, " ");
    put(text, "'", c, "e ");
    put(text, "'", c, "l ");
    put(text, "a", c, "b ");
    put(text, "A", c, "a ");
    put(text, "1", c, "2 ");
    put(text, "!", c, "' ");
    put(text, "", c, "\n");
    put(text, "  ", c, "  ");
    tokenlab::utf8::append(text, c);
    put(text, "\r\n", c, "");
    put(text, "\xE4\xB8\x80", c, "\xE3\x81\x82 ");  // 一 c あ
    put(text, ".", c, "x ");
    source.bytes += text.size();
    source.texts.push_back(std::move(text));
  }
  return source;
}

std::string escaped(std::string_view text) {
  std::string out;
  for (unsigned char c : text) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c < 0x20 || c == 0x7F) {
      char buffer[8];
      std::snprintf(buffer, sizeof buffer, "\\x%02X", c);
      out += buffer;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

std::string spans_text(std::string_view text, const Spans& spans) {
  std::string out;
  for (const auto& [start, end] : spans)
    out += "[" + escaped(text.substr(start, end - start)) + "]";
  return out;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

struct Preset {
  const char* name;
  std::string_view pattern;  // a sequence's key: its patterns joined by kSplitSeparator
};

// Differing texts of one source under one preset.
std::size_t check(const Preset& preset, tokenlab::UnicodeVersion unicode, const Source& source,
                  std::size_t show) {
  const auto sequence = tokenlab::split_sequence_run(preset.pattern, unicode);
  std::optional<tokenlab::test::IcuSplitSequence> stages;
  if (sequence) stages.emplace(preset.pattern, unicode);
  std::optional<tokenlab::PretrainedRegex> fast;
  std::optional<tokenlab::PretrainedRegex> icu;
  if (!sequence) {
    fast.emplace(std::string(preset.pattern), unicode);
    icu.emplace("(?:" + std::string(preset.pattern) + ")", unicode);
  }
  // A sequence's matcher is for well-formed text only.
  const auto compared = [&](const std::string& text) {
    return !sequence || !tokenlab::utf8::find_invalid(text);
  };
  std::vector<Spans> expected;
  expected.reserve(source.texts.size());
  auto start = std::chrono::steady_clock::now();
  for (const auto& text : source.texts)
    expected.push_back(!compared(text) ? Spans{}
                       : sequence      ? stages->pieces(text)
                                       : spans_of(*icu, text));
  const double icu_seconds = seconds_since(start);
  std::vector<Spans> got;
  got.reserve(source.texts.size());
  start = std::chrono::steady_clock::now();
  for (const auto& text : source.texts)
    got.push_back(!compared(text) ? Spans{}
                  : sequence      ? tokenlab::test::run_pieces(sequence, text)
                                  : spans_of(*fast, text));
  const double fast_seconds = seconds_since(start);
  std::size_t differing = 0;
  for (std::size_t i = 0; i < source.texts.size(); ++i) {
    if (got[i] == expected[i]) continue;
    if (differing++ < show)
      std::cerr << preset.name << " " << source.name << " text " << i + 1 << ": "
                << escaped(source.texts[i])
                << "\n  icu:    " << spans_text(source.texts[i], expected[i])
                << "\n  preset: " << spans_text(source.texts[i], got[i]) << "\n";
  }
  const double mb = static_cast<double>(source.bytes) / 1e6;
  std::printf("%s %s%s lines=%zu differing=%zu icu_MB/s=%.1f preset_MB/s=%.1f\n",
              source.name.c_str(), preset.name,
              unicode == tokenlab::UnicodeVersion::v16_0 ? "/unicode-16.0" : "",
              source.texts.size(), differing, mb / icu_seconds, mb / fast_seconds);
  std::fflush(stdout);
  return differing;
}

int usage() {
  std::cerr
      << "usage: tokenlab_regex_preset_check [--stress LINES] [--seed N] [--codepoints]\n"
         "                                   [--max-bytes N] [--show N] [--unicode library|16.0]\n"
         "                                   PATH...\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t stress_lines = 0;
  std::uint64_t seed = 20240601;
  bool codepoints = false;
  std::size_t max_bytes = static_cast<std::size_t>(-1);
  std::size_t show = 3;
  auto unicode = tokenlab::UnicodeVersion::library;
  std::vector<fs::path> paths;
  try {
    for (int i = 1; i < argc; ++i) {
      const std::string arg = argv[i];
      const auto value = [&]() -> std::size_t {
        if (i + 1 >= argc) throw tokenlab::Error(arg + " needs a value");
        return std::stoull(argv[++i]);
      };
      if (arg == "--stress") {
        stress_lines = value();
      } else if (arg == "--seed") {
        seed = value();
      } else if (arg == "--codepoints") {
        codepoints = true;
      } else if (arg == "--max-bytes") {
        max_bytes = value();
      } else if (arg == "--show") {
        show = value();
      } else if (arg == "--unicode" && i + 1 < argc) {
        const std::string version = argv[++i];
        if (version != "library" && version != "16.0") return usage();
        unicode =
            version == "16.0" ? tokenlab::UnicodeVersion::v16_0 : tokenlab::UnicodeVersion::library;
      } else if (arg.starts_with("--")) {
        return usage();
      } else {
        paths.emplace_back(arg);
      }
    }
    if (paths.empty() && stress_lines == 0 && !codepoints) return usage();
    std::vector<fs::path> files;
    for (const auto& path : paths) {
      if (!fs::exists(path)) {
        std::cout << "skipped: " << path.string() << " does not exist\n";
        return 77;
      }
      if (!fs::is_directory(path)) {
        files.push_back(path);
        continue;
      }
      std::vector<fs::path> inside;
      for (const auto& entry : fs::directory_iterator(path))
        if (entry.path().extension() == ".txt") inside.push_back(entry.path());
      std::sort(inside.begin(), inside.end());
      files.insert(files.end(), inside.begin(), inside.end());
    }
    const Preset presets[] = {{"gpt2", tokenlab::kGpt2Pattern},
                              {"cl100k", tokenlab::kCl100kPattern},
                              {"qwen2", tokenlab::kQwen2Pattern},
                              {"o200k", tokenlab::kO200kPattern},
                              {"deepseek_v3", tokenlab::kDeepSeekV3Splits}};
    std::size_t differing = 0;
    const auto check_all = [&](const Source& source) {
      for (const auto& preset : presets) differing += check(preset, unicode, source, show);
    };
    if (stress_lines > 0) {
      check_all(stress_source(stress_lines, seed, false));
      check_all(stress_source(stress_lines / 10, seed + 1, true));
    }
    if (codepoints) check_all(codepoint_source());
    for (const auto& file : files) check_all(read_source(file, max_bytes));
    std::printf("total differing=%zu\n", differing);
    return differing == 0 ? 0 : 1;
  } catch (const std::exception& e) {
    std::cerr << "tokenlab_regex_preset_check: " << e.what() << "\n";
    return 2;
  }
}
