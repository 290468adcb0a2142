#include "tokenlab/spilling_counter.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <ostream>
#include <vector>

#include "tokenlab/error.hpp"

namespace tokenlab {

namespace {

// What a table entry costs in memory, measured: the entry (a 32-byte string and
// its count) in a vector that may be twice its size, and the hash table's tags
// and slots at half load.
constexpr std::uint64_t kEntryOverhead = 112;

struct Record {
  std::string word;
  std::uint64_t count = 0;
  std::uint64_t key = 0;     // (run << 32) | rank: first-occurrence order
  std::uint64_t prefix = 0;  // the word's first 8 bytes as a big-endian number
};

// Words compared as numbers first: an unequal prefix orders them as their
// bytes do (zero padding sorts a shorter word first, and words hold no NUL),
// without a call to memcmp.
std::uint64_t prefix_of(std::string_view word) noexcept {
  std::uint64_t prefix = 0;
  for (std::size_t i = 0; i < 8; ++i)
    prefix = (prefix << 8) | (i < word.size() ? static_cast<unsigned char>(word[i]) : 0u);
  return prefix;
}

// An unnamed temporary file: removed by the kernel when closed or when the
// process dies.
class SpillFile {
 public:
  explicit SpillFile(const std::filesystem::path& dir) {
    int fd = ::open(dir.c_str(), O_TMPFILE | O_RDWR, 0600);
    if (fd < 0) {
      // No O_TMPFILE on this file system: a named file, unlinked at once.
      std::string name = (dir / "tokenlab-spill-XXXXXX").string();
      fd = ::mkstemp(name.data());
      if (fd >= 0) ::unlink(name.c_str());
    }
    if (fd < 0)
      throw Error("count --max-memory: cannot create a spill file in " + dir.string() + ": " +
                  std::strerror(errno));
    file_ = ::fdopen(fd, "w+b");
    if (file_ == nullptr) {
      ::close(fd);
      throw Error("count --max-memory: cannot open a spill file");
    }
  }
  ~SpillFile() {
    if (file_ != nullptr) std::fclose(file_);
  }
  SpillFile(const SpillFile&) = delete;
  SpillFile& operator=(const SpillFile&) = delete;

  void write(const Record& r) {
    const auto length = static_cast<std::uint32_t>(r.word.size());
    put(&length, sizeof length);
    put(r.word.data(), r.word.size());
    put(&r.count, sizeof r.count);
    put(&r.key, sizeof r.key);
  }
  void rewind() {
    if (std::fflush(file_) != 0 || std::fseek(file_, 0, SEEK_SET) != 0)
      throw Error("count --max-memory: cannot read back a spill file (disk full?)");
  }
  bool read(Record& r) {
    std::uint32_t length = 0;
    if (std::fread(&length, sizeof length, 1, file_) != 1) return false;
    r.word.resize(length);
    if ((length > 0 && std::fread(r.word.data(), length, 1, file_) != 1) ||
        std::fread(&r.count, sizeof r.count, 1, file_) != 1 ||
        std::fread(&r.key, sizeof r.key, 1, file_) != 1)
      throw Error("count --max-memory: a spill file is truncated");
    r.prefix = prefix_of(r.word);
    return true;
  }

 private:
  void put(const void* data, std::size_t size) {
    if (size > 0 && std::fwrite(data, size, 1, file_) != 1)
      throw Error("count --max-memory: cannot write a spill file: " +
                  std::string(std::strerror(errno)) + " (disk full?)");
  }
  std::FILE* file_ = nullptr;
};

using Runs = std::vector<std::unique_ptr<SpillFile>>;

// k-way merge of runs, each sorted by less: calls each(record) in order. each
// may move from the record it gets. The heap holds one record a run and moves
// them, never copies: a copy (a word's string) a record was a tenth of a
// spilled count's time.
template <class Less, class Each>
void merge_runs(Runs& runs, Less less, Each each) {
  struct Head {
    Record record;
    std::size_t run;
  };
  const auto later = [&](const Head& a, const Head& b) { return less(b.record, a.record); };
  std::vector<Head> heap;
  heap.reserve(runs.size());
  for (std::size_t i = 0; i < runs.size(); ++i) {
    runs[i]->rewind();
    Head h{{}, i};
    if (runs[i]->read(h.record)) heap.push_back(std::move(h));
  }
  std::make_heap(heap.begin(), heap.end(), later);
  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end(), later);
    Head& next = heap.back();
    each(next.record);
    if (runs[next.run]->read(next.record))
      std::push_heap(heap.begin(), heap.end(), later);
    else
      heap.pop_back();
  }
}

// By the prefix, then one comparison of the words (not != then <): sorting and
// merging runs compare words more than they do anything else.
bool by_word(const Record& a, const Record& b) {
  if (a.prefix != b.prefix) return a.prefix < b.prefix;
  const int order = a.word.compare(b.word);
  return order != 0 ? order < 0 : a.key < b.key;
}
bool by_key(const Record& a, const Record& b) {
  return a.key < b.key;
}

}  // namespace

struct SpillingCounter::Impl {
  std::uint64_t budget;
  std::filesystem::path dir;
  WordCounts table;  // the current run
  std::uint64_t table_bytes = 0;
  std::uint32_t run = 0;
  Runs by_word_runs;
  std::string settings;
  bool written = false;

  void account(std::size_t entries_before, std::string_view word) {
    if (table.size() > entries_before) table_bytes += word.size() + kEntryOverhead;
  }

  // The current table as records keyed by (run, rank), sorted by word, to disk.
  void spill() {
    if (table.empty()) return;
    // The words move from the table into the records: the table is never held twice.
    std::vector<WordCounts::Entry> entries = std::move(table).take_entries();
    table = WordCounts();
    std::vector<Record> records;
    records.reserve(entries.size());
    std::uint32_t rank = 0;
    for (auto& e : entries) {
      const std::uint64_t prefix = prefix_of(e.word);
      records.push_back({std::move(e.word), e.count, (std::uint64_t{run} << 32) | rank++, prefix});
    }
    entries = {};
    std::sort(records.begin(), records.end(), by_word);
    auto file = std::make_unique<SpillFile>(dir);
    for (const auto& r : records) file->write(r);
    by_word_runs.push_back(std::move(file));
    table_bytes = 0;
    ++run;
  }

  void check_budget() {
    if (table_bytes > budget) spill();
  }
};

SpillingCounter::SpillingCounter(std::uint64_t budget, std::filesystem::path spill_dir)
    : impl_(std::make_unique<Impl>()) {
  if (budget == 0) throw Error("the memory budget for counting must be positive");
  impl_->budget = budget;
  if (spill_dir.empty()) {
    const char* tmp = std::getenv("TMPDIR");
    spill_dir = tmp != nullptr && *tmp != '\0' ? tmp : "/tmp";
  }
  impl_->dir = std::move(spill_dir);
}

SpillingCounter::~SpillingCounter() = default;

void SpillingCounter::add(const WordCounts& block) {
  // In groups through add_hashed, which prefetches each group's slots and
  // entries: the run's table is tens of MiB, and one word at a time waited on
  // two cache misses a word. A group's new words are the table's last entries.
  constexpr std::size_t kGroup = 256;
  std::vector<WordCounts::HashedWord> group;
  group.reserve(kGroup);
  const auto& entries = block.entries();
  for (std::size_t first = 0; first < entries.size(); first += kGroup) {
    group.clear();
    for (std::size_t k = first; k < std::min(entries.size(), first + kGroup); ++k)
      group.push_back({entries[k].word, entries[k].count, WordCounts::hash(entries[k].word)});
    const std::size_t before = impl_->table.size();
    impl_->table.add_hashed(group);
    const auto& table = impl_->table.entries();
    for (std::size_t k = before; k < table.size(); ++k)
      impl_->table_bytes += table[k].word.size() + kEntryOverhead;
  }
  impl_->check_budget();
}

void SpillingCounter::add_entry(std::string_view word, std::uint64_t count) {
  const std::size_t before = impl_->table.size();
  impl_->table.add(word, count);
  impl_->account(before, word);
  impl_->check_budget();
}

void SpillingCounter::set_settings(const std::string& settings, const std::string& source) {
  if (settings.empty()) return;
  check_settings_can_add(source, settings, impl_->settings);
  impl_->settings = settings;
}

SpillingCounter::Summary SpillingCounter::write_tsv(std::ostream& out) {
  if (impl_->written) throw Error("SpillingCounter::write_tsv called twice");
  impl_->written = true;
  Summary summary;
  if (impl_->by_word_runs.empty()) {
    // Everything fitted: the in-memory table is the answer.
    impl_->table.set_settings(impl_->settings);
    impl_->table.save_tsv(out);
    summary.distinct = impl_->table.size();
    summary.total = impl_->table.total();
    return summary;
  }
  impl_->spill();
  summary.spilled_runs = impl_->by_word_runs.size();

  // Pass 2: by word, counts added; out in runs sorted by first occurrence.
  Runs by_key_runs;
  std::vector<Record> buffer;
  std::uint64_t buffer_bytes = 0;
  bool escaped = false;
  const auto flush = [&] {
    if (buffer.empty()) return;
    std::sort(buffer.begin(), buffer.end(), by_key);
    auto file = std::make_unique<SpillFile>(impl_->dir);
    for (const auto& r : buffer) file->write(r);
    by_key_runs.push_back(std::move(file));
    buffer.clear();
    buffer_bytes = 0;
  };
  std::optional<Record> current;
  std::uint64_t total = 0;
  const auto finish_word = [&] {
    if (!current) return;
    escaped = escaped || tsv_needs_escaping(current->word);
    ++summary.distinct;
    buffer_bytes += current->word.size() + kEntryOverhead;
    buffer.push_back(std::move(*current));
    current.reset();
    if (buffer_bytes > impl_->budget) flush();
  };
  merge_runs(impl_->by_word_runs, by_word, [&](Record& r) {
    if (current && current->word == r.word) {
      if (current->count > UINT64_MAX - r.count)
        throw Error("the count of '" + r.word + "' passes 2^64-1");
      current->count += r.count;  // keys arrive smallest first for one word
    }
    if (total > UINT64_MAX - r.count) throw Error("the total count passes 2^64-1");
    total += r.count;
    if (current && current->word == r.word) return;
    finish_word();
    current = std::move(r);
  });
  finish_word();
  impl_->by_word_runs.clear();
  flush();

  // Pass 3: by first occurrence, into the TSV.
  if (escaped || !impl_->settings.empty()) {
    out << kTsvHeader;
    if (escaped) out << " escaped";
    if (!impl_->settings.empty()) out << ' ' << impl_->settings;
    out << '\n';
  }
  std::string line;
  merge_runs(by_key_runs, by_key, [&](const Record& r) {
    line.clear();
    append_tsv_line(line, r.word, r.count, escaped);
    out.write(line.data(), static_cast<std::streamsize>(line.size()));
    summary.total += r.count;
  });
  return summary;
}

std::uint64_t parse_memory_size(const std::string& text) {
  std::uint64_t value = 0;
  std::size_t i = 0;
  while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
    if (value > (UINT64_MAX - 9) / 10) throw Error("memory size '" + text + "' is too large");
    value = value * 10 + static_cast<std::uint64_t>(text[i++] - '0');
  }
  if (i == 0) throw Error("memory size '" + text + "' is not a number (as 512M or 2G)");
  int shift = 0;
  if (i < text.size()) {
    const char unit = static_cast<char>(text[i] | 0x20);
    shift = unit == 'k' ? 10 : unit == 'm' ? 20 : unit == 'g' ? 30 : unit == 't' ? 40 : -1;
    if (shift < 0 || i + 1 != text.size())
      throw Error("memory size '" + text + "': the unit must be K, M, G or T");
  }
  if (shift > 0 && value > (UINT64_MAX >> shift))
    throw Error("memory size '" + text + "' is too large");
  return value << shift;
}

}  // namespace tokenlab
