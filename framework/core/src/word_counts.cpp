#include "tokenlab/word_counts.hpp"

#include <optional>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <fstream>
#include <functional>
#include <istream>
#include <limits>
#include <ostream>

#include "tokenlab/atomic_file.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/line_reader.hpp"
#include "tokenlab/utf8.hpp"

namespace tokenlab {

using detail::same_bytes;

namespace {

constexpr std::uint64_t kTagShift = 32;

std::size_t home_slot(std::uint64_t slot_value, std::size_t mask) noexcept {
  return (static_cast<std::size_t>(slot_value >> kTagShift) * 0x9E3779B1u) & mask;
}

}  // namespace

std::size_t WordCounts::find_slot(std::string_view word, std::uint32_t tag) const noexcept {
  const std::size_t mask = slots_.size() - 1;
  std::size_t slot = (static_cast<std::size_t>(tag) * 0x9E3779B1u) & mask;
  for (;;) {
    const std::uint64_t occupant = slots_[slot];
    if (occupant == 0) return slot;
    // The tag sits in the slot, so a probe reads an entry only when tags match.
    if (static_cast<std::uint32_t>(occupant >> kTagShift) == tag) {
      const Entry& entry = entries_[static_cast<std::uint32_t>(occupant) - 1];
      if (entry.word.size() == word.size() &&
          same_bytes(entry.word.data(), word.data(), word.size()))
        return slot;
    }
    slot = (slot + 1) & mask;
  }
}

void WordCounts::grow() {
  const std::size_t capacity = std::max<std::size_t>(64, slots_.size() * 2);
  std::vector<std::uint64_t> old = std::move(slots_);
  slots_.assign(capacity, 0);
  const std::size_t mask = capacity - 1;
  for (const std::uint64_t value : old) {
    if (value == 0) continue;
    std::size_t slot = home_slot(value, mask);
    while (slots_[slot] != 0) slot = (slot + 1) & mask;
    slots_[slot] = value;
  }
}

namespace {

// The word for an error message: at most 60 bytes, cut at a character boundary.
std::string quoted_word(std::string_view word) {
  constexpr std::size_t kMax = 60;
  if (word.size() <= kMax) return "'" + std::string(word) + "'";
  std::size_t cut = kMax;
  while (cut > 0 && (static_cast<unsigned char>(word[cut]) & 0xC0) == 0x80) --cut;
  return "'" + std::string(word.substr(0, cut)) + "...' (" + std::to_string(word.size()) +
         " bytes)";
}

}  // namespace

void WordCounts::add(std::string_view word, std::uint64_t count) {
  if ((entries_.size() + 1) * 2 > slots_.size()) grow();  // load factor <= 1/2
  add_tagged(word, static_cast<std::uint32_t>(hash(word) >> kTagShift), count);
}

void WordCounts::add_tagged(std::string_view word, std::uint32_t tag, std::uint64_t count) {
  std::uint64_t total = 0;
  if (__builtin_add_overflow(total_, count, &total))
    throw Error("count overflow: adding " + std::to_string(count) + " occurrences of " +
                quoted_word(word) + " takes the total past 2^64-1 (18446744073709551615)");
  const std::size_t slot = find_slot(word, tag);
  if (slots_[slot] != 0) {
    std::uint64_t& existing = entries_[static_cast<std::uint32_t>(slots_[slot]) - 1].count;
    std::uint64_t sum = 0;
    if (__builtin_add_overflow(existing, count, &sum))
      throw Error("count overflow: the count of " + quoted_word(word) + " (" +
                  std::to_string(existing) + " + " + std::to_string(count) +
                  ") exceeds 2^64-1 (18446744073709551615)");
    existing = sum;
    total_ = total;
    return;
  }
  if (entries_.size() >= std::numeric_limits<std::uint32_t>::max() - 1)
    throw Error(
        "more than 2^32-2 distinct words: count in shards and merge with a smaller "
        "--max-memory, or pre-tokenize differently");
  entries_.push_back(Entry{std::string(word), count});
  slots_[slot] = (static_cast<std::uint64_t>(tag) << kTagShift) | entries_.size();
  total_ = total;
}

void check_settings_can_add(const std::string& source, const std::string& settings,
                            const std::string& before) {
  if (settings.empty() || before.empty() || settings == before) return;
  throw Error((source.empty() ? std::string("counts") : source) + ": counted with " + settings +
              ", and the counts before it with " + before +
              ": they cut words differently and cannot be added");
}

void WordCounts::merge(const WordCounts& other, const std::string& source) {
  check_settings_can_add(source, other.settings_, settings_);
  if (settings_.empty()) settings_ = other.settings_;
  try {
    HashedWord group[kGroup];
    const auto& words = other.entries_;
    for (std::size_t first = 0; first < words.size(); first += kGroup) {
      const std::size_t n = std::min(kGroup, words.size() - first);
      for (std::size_t j = 0; j < n; ++j) {
        const Entry& entry = words[first + j];
        group[j] = {entry.word, entry.count, hash(entry.word)};
      }
      add_group(group, n);
    }
  } catch (const Error& e) {
    if (source.empty()) throw;
    throw Error(source + ": " + e.what());
  }
}

// A block's words (30,000 for a MiB of English) into the corpus table, where
// most of the rarer ones miss the cache twice, on the slot and then on the
// entry. Prefetched as a stream: the slot kSlotsAhead words ahead, the entry
// (its slot loaded by then) kEntriesAhead ahead, so that the misses of many
// words overlap all along, where add_group's groups of 16 waited at every
// group for the slowest of its misses.
void WordCounts::add_hashed(std::span<const HashedWord> words) {
  constexpr std::size_t kSlotsAhead = 24;
  constexpr std::size_t kEntriesAhead = 12;
  const std::size_t n = words.size();
  while ((entries_.size() + n) * 2 > slots_.size()) grow();  // no growth in the loop
  const std::size_t mask = slots_.size() - 1;
  const auto home = [&](std::size_t j) {
    return (static_cast<std::size_t>(words[j].hash >> kTagShift) * 0x9E3779B1u) & mask;
  };
  for (std::size_t j = 0; j < std::min(n, kSlotsAhead); ++j) __builtin_prefetch(&slots_[home(j)]);
  for (std::size_t j = 0; j < n; ++j) {
    if (j + kSlotsAhead < n) __builtin_prefetch(&slots_[home(j + kSlotsAhead)]);
    if (j + kEntriesAhead < n) {
      const std::uint64_t slot = slots_[home(j + kEntriesAhead)];
      if (slot != 0) __builtin_prefetch(&entries_[static_cast<std::uint32_t>(slot) - 1]);
    }
    add_tagged(words[j].word, static_cast<std::uint32_t>(words[j].hash >> kTagShift),
               words[j].count);
  }
}

// Adding a block's words to a large table waits on two cache misses a word (the
// slot, then the entry). The words of a group are all known, so prefetch their
// slots, then their entries, and only then add: the misses of a group overlap
// instead of following one another.
void WordCounts::add_group(const HashedWord* words, std::size_t n) {
  while ((entries_.size() + n) * 2 > slots_.size()) grow();
  const std::size_t mask = slots_.size() - 1;
  std::uint32_t tags[kGroup];
  for (std::size_t j = 0; j < n; ++j) {
    tags[j] = static_cast<std::uint32_t>(words[j].hash >> kTagShift);
    __builtin_prefetch(&slots_[(static_cast<std::size_t>(tags[j]) * 0x9E3779B1u) & mask]);
  }
  for (std::size_t j = 0; j < n; ++j) {
    const std::uint64_t home = slots_[(static_cast<std::size_t>(tags[j]) * 0x9E3779B1u) & mask];
    if (home != 0) __builtin_prefetch(&entries_[static_cast<std::uint32_t>(home) - 1]);
  }
  for (std::size_t j = 0; j < n; ++j) add_tagged(words[j].word, tags[j], words[j].count);
}

WordCounts WordCounts::from_entries(std::vector<Entry> entries) {
  WordCounts counts;
  counts.reserve(entries.size());
  counts.entries_ = std::move(entries);
  for (std::size_t i = 0; i < counts.entries_.size(); ++i) {
    const Entry& entry = counts.entries_[i];
    if (__builtin_add_overflow(counts.total_, entry.count, &counts.total_))
      throw Error("count overflow: the total passes 2^64-1 (18446744073709551615) at " +
                  quoted_word(entry.word));
    const auto tag = static_cast<std::uint32_t>(hash(entry.word) >> kTagShift);
    const std::size_t slot = counts.find_slot(entry.word, tag);
    if (counts.slots_[slot] != 0)
      throw Error("word counts list " + quoted_word(entry.word) + " twice");
    counts.slots_[slot] = (static_cast<std::uint64_t>(tag) << kTagShift) | (i + 1);
  }
  return counts;
}

std::vector<WordCounts::Entry> WordCounts::take_entries() && {
  std::vector<Entry> out = std::move(entries_);
  entries_.clear();
  slots_ = {};
  total_ = 0;
  return out;
}

void WordCounts::set_settings(std::string settings) {
  if (settings.find_first_of("\t\r\n") != std::string::npos)
    throw Error("counts settings must not hold tabs or line breaks");
  settings_ = std::move(settings);
}

std::uint64_t WordCounts::count_of(std::string_view word) const noexcept {
  if (slots_.empty()) return 0;
  const std::size_t slot = find_slot(word, static_cast<std::uint32_t>(hash(word) >> kTagShift));
  return slots_[slot] == 0 ? 0 : entries_[static_cast<std::uint32_t>(slots_[slot]) - 1].count;
}

void WordCounts::reserve(std::size_t n) {
  entries_.reserve(n);
  std::size_t capacity = 64;
  while (capacity < 2 * n) capacity *= 2;
  if (capacity > slots_.size()) {
    slots_.assign(capacity / 2, 0);  // grow() doubles it and reinserts
    grow();
  }
}

namespace {

bool needs_escaping(std::string_view word) noexcept {
  return tsv_needs_escaping(word);
}

void append_escaped(std::string& out, std::string_view word) {
  for (const char c : word) {
    switch (c) {
      case '\\':
        out += "\\\\";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\n':
        out += "\\n";
        break;
      default:
        out += c;
    }
  }
}

// The inverse of append_escaped; nullopt for a backslash not followed by one of
// \\ t r n.
std::optional<std::string> unescaped(std::string_view word) {
  std::string out;
  out.reserve(word.size());
  for (std::size_t i = 0; i < word.size(); ++i) {
    if (word[i] != '\\') {
      out += word[i];
      continue;
    }
    if (++i == word.size()) return std::nullopt;
    switch (word[i]) {
      case '\\':
        out += '\\';
        break;
      case 't':
        out += '\t';
        break;
      case 'r':
        out += '\r';
        break;
      case 'n':
        out += '\n';
        break;
      default:
        return std::nullopt;
    }
  }
  return out;
}

}  // namespace

bool tsv_needs_escaping(std::string_view word) noexcept {
  // Only the pre-tokenizers that keep white space in their pieces (the regex
  // presets) make such words.
  // A loop of its own: find_first_of calls memchr on the three characters for
  // every byte, which took most of the time of writing a large table.
  for (const char c : word)
    if (static_cast<unsigned char>(c) <= '\r' && (c == '\t' || c == '\r' || c == '\n')) return true;
  return false;
}

void append_tsv_line(std::string& out, std::string_view word, std::uint64_t count, bool escaped) {
  if (escaped)
    append_escaped(out, word);
  else
    out.append(word);
  char digits[24];
  digits[0] = '\t';
  char* end = std::to_chars(digits + 1, digits + sizeof digits - 1, count).ptr;
  *end++ = '\n';
  out.append(digits, end);
}

void WordCounts::save_tsv(std::ostream& out) const {
  const bool escaped = std::any_of(entries_.begin(), entries_.end(),
                                   [](const Entry& e) { return needs_escaping(e.word); });
  if (escaped || !settings_.empty()) {
    out << kTsvHeader;
    if (escaped) out << " escaped";
    if (!settings_.empty()) out << ' ' << settings_;
    out << '\n';
  }
  // Written in pieces of about 1 MiB: a write a line, each with its sentry, was
  // most of the time it took to save 340,000 words.
  constexpr std::size_t kPiece = std::size_t{1} << 20;
  std::string piece;
  piece.reserve(kPiece + 256);
  for (const auto& e : entries_) {
    append_tsv_line(piece, e.word, e.count, escaped);
    if (piece.size() >= kPiece) {
      out.write(piece.data(), static_cast<std::streamsize>(piece.size()));
      piece.clear();
    }
  }
  out.write(piece.data(), static_cast<std::streamsize>(piece.size()));
}

void WordCounts::save_tsv(const std::filesystem::path& path) const {
  write_file_atomically(path, [&](std::ostream& out) { save_tsv(out); });
}

TsvReader::TsvReader(std::istream& in, std::string name) : in_(in), name_(std::move(name)) {}

bool TsvReader::next(std::string& word, std::uint64_t& count) {
  while (read_bounded_line(in_, line_, name_, line_number_ + 1)) {
    ++line_number_;
    const auto where = [&] { return name_ + ":" + std::to_string(line_number_) + ": "; };
    if (line_number_ == 1 && line_.starts_with(kTsvHeader) &&
        line_.find('\t') == std::string::npos &&
        (line_.size() == kTsvHeader.size() || line_[kTsvHeader.size()] == ' ')) {
      // "#tokenlab-counts [escaped] [settings]"
      std::string_view rest = std::string_view(line_).substr(kTsvHeader.size());
      while (rest.starts_with(' ')) rest.remove_prefix(1);
      if (rest == "escaped" || rest.starts_with("escaped ")) {
        escaped_ = true;
        rest.remove_prefix(std::min<std::size_t>(rest.size(), 8));
      }
      if (auto bad = utf8::find_invalid(rest))
        throw Error(where() + "invalid UTF-8 in the header at byte " + std::to_string(*bad));
      settings_ = std::string(rest);
      continue;
    }
    if (line_.empty()) continue;
    const auto tab = line_.rfind('\t');
    if (tab == std::string::npos || tab == 0)
      throw Error(where() + "expected 'word<TAB>count', found no tab");
    const std::string_view raw(line_.data(), tab);
    if (raw.find('\t') != std::string_view::npos) throw Error(where() + "word contains a tab");
    if (escaped_) {
      auto plain = unescaped(raw);
      if (!plain)
        throw Error(where() + "a backslash that is not \\\\, \\t, \\r or \\n in an escaped file");
      word = std::move(*plain);
    } else {
      word.assign(raw);
    }
    if (auto bad = utf8::find_invalid(word))
      throw Error(where() + "invalid UTF-8 at byte " + std::to_string(*bad));
    // As count refuses a corpus line with NUL: no tokenizer sees such a word.
    if (const auto nul = word.find('\0'); nul != std::string::npos)
      throw Error(where() + "NUL byte in the word at byte " + std::to_string(nul));
    const char* first = line_.data() + tab + 1;
    const char* last = line_.data() + line_.size();
    auto [ptr, ec] = std::from_chars(first, last, count);
    if (ec != std::errc() || ptr != last || count == 0) {
      const std::string_view text(first, static_cast<std::size_t>(last - first));
      if (ec == std::errc() && count > 0 && text.substr(ptr - first) == "\r")
        throw Error(where() +
                    "the count ends with a carriage return (CR, a Windows line end); "
                    "counts files end lines with LF only");
      // The message quotes at most 40 bytes: a 10 MB field must not make a 10 MB message.
      constexpr std::size_t kQuoted = 40;
      throw Error(
          where() + "count '" + utf8::replace_invalid(text.substr(0, kQuoted)) +
          (text.size() > kQuoted ? "...' (" + std::to_string(text.size()) + " bytes)" : "'") +
          " is not a positive integer" +
          (ec == std::errc::result_out_of_range ? " below 2^64" : ""));
    }
    return true;
  }
  if (in_.bad()) throw Error(name_ + ": read error");
  return false;
}

WordCounts WordCounts::load_tsv(std::istream& in, const std::string& name) {
  WordCounts counts;
  TsvReader reader(in, name);
  std::string word;
  std::uint64_t count = 0;
  while (reader.next(word, count)) {
    try {
      counts.add(word, count);
    } catch (const Error& e) {
      throw Error(name + ":" + std::to_string(reader.line_number()) + ": " + e.what());
    }
  }
  counts.settings_ = reader.settings();
  return counts;
}

std::ifstream open_counts_file(const std::filesystem::path& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw Error(path.string() + ": is a directory, not a counts file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path.string() + ": cannot open counts file");
  return in;
}

WordCounts WordCounts::load_tsv(const std::filesystem::path& path) {
  std::ifstream in = open_counts_file(path);
  return load_tsv(in, path.string());
}

}  // namespace tokenlab
