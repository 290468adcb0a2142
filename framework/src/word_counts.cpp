#include "tokenlab/word_counts.hpp"

#include <charconv>
#include <fstream>
#include <istream>
#include <ostream>

#include "tokenlab/atomic_file.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/utf8.hpp"

namespace tokenlab {

void WordCounts::add(std::string_view word, std::uint64_t count) {
  total_ += count;
  if (auto it = index_.find(word); it != index_.end()) {
    entries_[it->second].count += count;
    return;
  }
  index_.emplace(std::string(word), entries_.size());
  entries_.push_back(Entry{std::string(word), count});
}

void WordCounts::merge(const WordCounts& other) {
  for (const auto& e : other.entries_) add(e.word, e.count);
}

std::uint64_t WordCounts::count_of(std::string_view word) const noexcept {
  auto it = index_.find(word);
  return it == index_.end() ? 0 : entries_[it->second].count;
}

void WordCounts::reserve(std::size_t n) {
  entries_.reserve(n);
  index_.reserve(n);
}

void WordCounts::save_tsv(std::ostream& out) const {
  std::string line;
  for (const auto& e : entries_) {
    line.assign(e.word);
    line += '\t';
    line += std::to_string(e.count);
    line += '\n';
    out.write(line.data(), static_cast<std::streamsize>(line.size()));
  }
}

void WordCounts::save_tsv(const std::filesystem::path& path) const {
  write_file_atomically(path, [&](std::ostream& out) { save_tsv(out); });
}

WordCounts WordCounts::load_tsv(std::istream& in, const std::string& name) {
  WordCounts counts;
  std::string line;
  std::uint64_t line_number = 0;
  while (std::getline(in, line)) {
    ++line_number;
    const auto where = [&] { return name + ":" + std::to_string(line_number) + ": "; };
    if (line.empty()) continue;
    const auto tab = line.rfind('\t');
    if (tab == std::string::npos || tab == 0)
      throw Error(where() + "expected 'word<TAB>count', found no tab");
    std::string_view word(line.data(), tab);
    if (word.find('\t') != std::string_view::npos) throw Error(where() + "word contains a tab");
    if (auto bad = utf8::find_invalid(word))
      throw Error(where() + "invalid UTF-8 at byte " + std::to_string(*bad));
    std::uint64_t count = 0;
    const char* first = line.data() + tab + 1;
    const char* last = line.data() + line.size();
    auto [ptr, ec] = std::from_chars(first, last, count);
    if (ec != std::errc() || ptr != last || count == 0)
      throw Error(where() + "count '" + std::string(first, last) + "' is not a positive integer");
    counts.add(word, count);
  }
  if (in.bad()) throw Error(name + ": read error");
  return counts;
}

WordCounts WordCounts::load_tsv(const std::filesystem::path& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw Error(path.string() + ": is a directory, not a counts file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path.string() + ": cannot open counts file");
  return load_tsv(in, path.string());
}

}  // namespace tokenlab
