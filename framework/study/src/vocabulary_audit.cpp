#include "tokenlab/vocabulary_audit.hpp"

#include <algorithm>
#include <fstream>
#include <thread>

#include "tokenlab/error.hpp"
#include "tokenlab/parallel.hpp"
#include "tokenlab/utf8.hpp"

namespace tokenlab {

namespace {

// A table cell on one line: control characters as \n, \t or \xNN.
std::string escape_controls(const std::string& text) {
  std::string out;
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x20 && byte != 0x7F) {
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else {
      static constexpr char kHex[] = "0123456789ABCDEF";
      out += "\\x";
      out += kHex[byte >> 4];
      out += kHex[byte & 15];
    }
  }
  return out;
}

unsigned resolve_threads(unsigned threads) {
  return threads != 0 ? threads : std::max(1u, std::thread::hardware_concurrency());
}

// What one id contributes; filled in parallel, one slot per id, summed in id order.
struct EntryFacts {
  EntryKind kind = EntryKind::gap;
  bool single_byte = false;
  bool partial_utf8 = false;
  bool continuation = false;
  bool tested = false;
  bool reachable = false;
};

EntryFacts facts_of(const TextEncoder& encoder, TokenId id) {
  const VocabularyEntry entry = encoder.vocabulary_entry(id);
  EntryFacts f;
  f.kind = entry.kind;
  f.continuation = entry.continuation;
  if (entry.kind != EntryKind::normal && entry.kind != EntryKind::byte_fallback) return f;
  f.single_byte = entry.text.size() == 1;
  const bool valid = !utf8::find_invalid(entry.text).has_value();
  f.partial_utf8 = entry.kind == EntryKind::normal && entry.text.size() >= 2 && !valid;
  // A partial byte string is no text one could encode; a continuation never
  // starts a word; a byte piece is reached through the bytes it spells.
  f.tested = entry.kind == EntryKind::normal && valid && !entry.text.empty() && !entry.continuation;
  if (f.tested) f.reachable = encoder.encodes_to_itself(id);
  return f;
}

// Which ids the lines use, counted per worker and merged.
std::vector<std::uint64_t> usage(const TextEncoder& encoder, std::span<const std::string> lines,
                                 std::size_t ids, unsigned threads) {
  std::vector<std::vector<std::uint64_t>> counts(threads, std::vector<std::uint64_t>(ids, 0));
  parallel_for_workers(lines.size(), threads, [&](unsigned worker, std::size_t i) {
    thread_local std::vector<TokenId> out;
    out.clear();
    encoder.encode(lines[i], out);
    for (const TokenId id : out)
      if (id < ids) ++counts[worker][id];
  });
  for (std::size_t w = 1; w < counts.size(); ++w)
    for (std::size_t id = 0; id < ids; ++id) counts[0][id] += counts[w][id];
  return std::move(counts[0]);
}

void add_word_list(const TextEncoder& encoder, std::span<const std::string> words, unsigned threads,
                   VocabularyAudit& audit) {
  std::vector<std::uint8_t> kept(words.size(), 0);  // bit 0: a word; 1: alone; 2: spaced
  parallel_for(words.size(), threads, [&](std::size_t i) {
    const std::string& w = words[i];
    if (w.empty() || utf8::find_invalid(w) ||
        std::any_of(w.begin(), w.end(), [](char c) { return c == ' ' || c == '\t'; }))
      return;
    std::vector<TokenId> ids;
    encoder.encode(w, ids);
    std::uint8_t bits = 1;
    if (ids.size() == 1) bits |= 2;
    ids.clear();
    encoder.encode(" " + w, ids);
    if (ids.size() == 1) bits |= 4;
    kept[i] = bits;
  });
  for (const std::uint8_t bits : kept) {
    audit.words += bits & 1;
    audit.words_single_token += (bits >> 1) & 1;
    audit.words_single_token_spaced += (bits >> 2) & 1;
  }
}

}  // namespace

double VocabularyAudit::retention() const noexcept {
  return words == 0 ? 0.0 : static_cast<double>(words_single_token) / static_cast<double>(words);
}

double VocabularyAudit::retention_spaced() const noexcept {
  return words == 0 ? 0.0
                    : static_cast<double>(words_single_token_spaced) / static_cast<double>(words);
}

VocabularyAudit audit_vocabulary(const TextEncoder& encoder, const AuditInput& input) {
  const unsigned threads = resolve_threads(input.threads);
  VocabularyAudit audit;
  audit.ids = encoder.vocabulary_size();
  std::vector<EntryFacts> facts(audit.ids);
  // Chunks of ids, not single ids: one entry costs a few microseconds, a task
  // handed out per id would cost as much in scheduling.
  constexpr std::size_t kChunk = 512;
  parallel_for((audit.ids + kChunk - 1) / kChunk, threads, [&](std::size_t chunk) {
    const std::size_t end = std::min(audit.ids, (chunk + 1) * kChunk);
    for (std::size_t id = chunk * kChunk; id < end; ++id)
      facts[id] = facts_of(encoder, static_cast<TokenId>(id));
  });
  std::vector<std::uint64_t> used;
  if (!input.evaluation_lines.empty()) {
    used = usage(encoder, input.evaluation_lines, audit.ids, threads);
    audit.evaluated = true;
  }
  for (std::size_t id = 0; id < audit.ids; ++id) {
    const EntryFacts& f = facts[id];
    if (f.kind == EntryKind::gap) continue;
    ++audit.entries;
    audit.special += f.kind == EntryKind::special;
    audit.added += f.kind == EntryKind::added;
    audit.byte_fallback += f.kind == EntryKind::byte_fallback;
    audit.continuation += f.continuation;
    audit.single_byte += f.single_byte;
    audit.partial_utf8 += f.partial_utf8;
    audit.reachability_tested += f.tested;
    if (f.tested && !f.reachable) {
      ++audit.unreachable;
      if (audit.unreachable_examples.size() < input.examples)
        audit.unreachable_examples.push_back(
            escape_controls(encoder.display_piece(static_cast<TokenId>(id))));
    }
    if (audit.evaluated) {
      audit.evaluation_tokens += used[id];
      const bool text_entry = f.kind == EntryKind::normal || f.kind == EntryKind::byte_fallback;
      audit.never_used += text_entry && used[id] == 0;
    }
  }
  add_word_list(encoder, input.word_list, threads, audit);
  return audit;
}

std::vector<std::string> read_word_list(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path + ": cannot read the word list");
  std::vector<std::string> words;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    line.resize(std::min(line.size(), line.find('\t')));
    words.push_back(line);
  }
  return words;
}

}  // namespace tokenlab
