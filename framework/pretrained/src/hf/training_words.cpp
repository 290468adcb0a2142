#include "tokenlab/pretrained/hf_training_words.hpp"

#include <algorithm>
#include <array>
#include <fstream>
#include <iterator>
#include <string_view>

#include "hf/word_count_shortcuts.hpp"
#include "tokenlab/bert_characters.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/parallel.hpp"
#include "tokenlab/train_options.hpp"
#include "tokenlab/utf8.hpp"
#include "tokenlab/word_counts.hpp"

namespace tokenlab {
namespace hf {
namespace {

std::string read_whole(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path + ": cannot read the corpus file");
  std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw Error(path + ": error while reading the corpus file");
  return content;
}

// Chunks of about kChunk bytes that end after a '\n' (or at the end).
std::vector<std::string_view> chunks_of(std::string_view text) {
  constexpr std::size_t kChunk = 1 << 20;
  std::vector<std::string_view> chunks;
  while (!text.empty()) {
    std::size_t end = std::min(text.size(), kChunk);
    const std::size_t newline = text.find('\n', end - 1);
    end = newline == std::string_view::npos ? text.size() : newline + 1;
    chunks.push_back(text.substr(0, end));
    text.remove_prefix(end);
  }
  return chunks;
}

// The bytes that end a chunk of word_count_shortcuts.hpp: the ASCII white space
// both pre-tokenizers drop and BertNormalizer keeps (it removes \v and \f, which
// are controls to it).
bool ends_chunk(char c) noexcept {
  return c == ' ' || c == '\n' || c == '\t' || c == '\r';
}

// Words added some at a time (WordCounts::add_hashed), so that the table's cache
// misses for them overlap: one a word was the largest cost of the counting. The
// bytes of add()'s words must stay put until flush(); add_copy() keeps a copy.
class BatchedCounts {
 public:
  explicit BatchedCounts(WordCounts& counts) : counts_(counts) {
    batch_.reserve(kBatch);
    copies_.reserve(kCopies);
  }
  void add(std::string_view word) {
    batch_.push_back({word, 1, WordCounts::hash(word)});
    if (batch_.size() == kBatch) flush();
  }
  void add_copy(std::string_view word) {
    if (copies_.size() + word.size() > copies_.capacity()) flush();  // no move under the views
    const std::size_t at = copies_.size();
    copies_ += word;
    add(std::string_view(copies_).substr(at));
  }
  void flush() {
    counts_.add_hashed(batch_);
    batch_.clear();
    copies_.clear();
  }

 private:
  static constexpr std::size_t kBatch = 256;
  static constexpr std::size_t kCopies = 1 << 14;
  WordCounts& counts_;
  std::vector<WordCounts::HashedWord> batch_;
  std::string copies_;
};

// Counts the pieces of text (whole lines) chunk by chunk (word_count_shortcuts.hpp).
void count_by_chunks(const PretrainedTokenizer& tokenizer, const AsciiWordRule& rule,
                     std::string_view text, WordCounts& counts) {
  // The pieces are views into text, or into its lower-cased copy, whole for the
  // batches; the pipeline still reads the original.
  std::string lowered;
  std::string_view source = text;
  if (rule.lowercase) {
    lowered.assign(text);
    for (char& c : lowered)
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    source = lowered;
  }
  BatchedCounts batched(counts);
  std::vector<std::string_view> pieces;
  const auto add = [&](std::string_view piece, bool) { batched.add_copy(piece); };
  std::size_t start = 0;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    if (i < text.size() && !ends_chunk(text[i])) continue;
    const std::size_t length = i - start;
    const std::size_t begin = start;
    start = i + 1;
    if (length == 0) continue;
    if (!is_printable_ascii(text.substr(begin, length))) {
      tokenizer.for_each_piece(text.substr(begin, length), add);
      continue;
    }
    pieces.clear();
    ascii_pieces(source.substr(begin, length), rule.isolate_punctuation, pieces);
    for (const std::string_view piece : pieces) batched.add(piece);
  }
  batched.flush();
}

// Counts the Metaspace pieces of each line of text (word_count_shortcuts.hpp).
void count_metaspace_lines(const std::string& replacement, std::string_view text,
                           WordCounts& counts) {
  constexpr std::size_t npos = std::string_view::npos;
  // The pieces, written one after the other where they stay for the batches: a
  // space becomes the replacement, and each line may get one more.
  const auto spaces = static_cast<std::size_t>(std::count(text.begin(), text.end(), ' '));
  const auto lines = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) + 1;
  std::string pieces;
  pieces.reserve(text.size() + (spaces + lines) * replacement.size());
  BatchedCounts batched(counts);
  while (!text.empty()) {
    const std::size_t newline = text.find('\n');
    const std::string_view line = text.substr(0, newline == npos ? text.size() : newline + 1);
    text.remove_prefix(line.size());
    // Each run between separators becomes replacement + run, but for an empty
    // first run: a line that starts with a separator gets no replacement prepended.
    std::size_t replaced = line.find(replacement);
    for (std::size_t start = 0;;) {
      if (replaced != npos && replaced < start) replaced = line.find(replacement, start);
      const std::size_t space = line.find(' ', start);
      const std::size_t end = std::min(space, replaced);
      if (start > 0 || end > 0) {
        const std::size_t at = pieces.size();
        pieces += replacement;
        pieces += line.substr(start, end == npos ? npos : end - start);
        batched.add(std::string_view(pieces).substr(at));
      }
      if (end == npos) break;
      start = end + (end == space ? 1 : replacement.size());
    }
  }
  batched.flush();
}

struct Shortcuts {
  std::optional<AsciiWordRule> ascii;
  std::optional<std::string> metaspace;
};

void count_chunk(const PretrainedTokenizer& tokenizer, const Shortcuts& shortcuts,
                 std::string_view chunk, WordCounts& counts) {
  if (shortcuts.ascii) {
    count_by_chunks(tokenizer, *shortcuts.ascii, chunk, counts);
    return;
  }
  if (shortcuts.metaspace) {
    count_metaspace_lines(*shortcuts.metaspace, chunk, counts);
    return;
  }
  BatchedCounts batched(counts);
  while (!chunk.empty()) {
    const std::size_t newline = chunk.find('\n');
    const std::size_t end = newline == std::string_view::npos ? chunk.size() : newline + 1;
    tokenizer.for_each_piece(chunk.substr(0, end),
                             [&](std::string_view piece, bool) { batched.add_copy(piece); });
    chunk.remove_prefix(end);
  }
  batched.flush();
}

}  // namespace

std::optional<AsciiWordRule> ascii_word_rule(const PretrainedPipeline& p) {
  if (!p.added.empty() || p.normalizers.size() > 1 || p.pre_tokenizers.size() != 1)
    return std::nullopt;
  AsciiWordRule rule;
  if (!p.normalizers.empty()) {
    const NormalizerStep& normalizer = *p.normalizers.front();
    if (const auto lowercase = bert_normalizer_lowercase(normalizer))
      rule.lowercase = *lowercase;
    else if (!is_nfc_normalizer(normalizer))
      return std::nullopt;
  }
  const PreTokenizerStep& pre_tokenizer = *p.pre_tokenizers.front();
  if (is_bert_pre_tokenizer(pre_tokenizer))
    rule.isolate_punctuation = true;
  else if (!is_whitespace_pre_tokenizer(pre_tokenizer))
    return std::nullopt;
  return rule;
}

std::optional<std::string> metaspace_line_replacement(const PretrainedPipeline& p) {
  if (!p.added.empty() || !p.normalizers.empty() || p.pre_tokenizers.size() != 1)
    return std::nullopt;
  return metaspace_always_split(*p.pre_tokenizers.front());
}

bool is_printable_ascii(std::string_view chunk) noexcept {
  for (const char c : chunk)
    if (c < 0x20 || c > 0x7E) return false;  // char may be signed: bytes >= 0x80 are < 0
  return true;
}

void ascii_pieces(std::string_view chunk, bool isolate_punctuation,
                  std::vector<std::string_view>& pieces) {
  // The classes of printable ASCII: BERT's punctuation, and Whitespace's \w.
  static const auto kClasses = [] {
    std::array<std::uint8_t, 128> classes{};  // bit 0: punctuation, bit 1: word
    for (char32_t c = 0x20; c < 0x7F; ++c) {
      const bool word =
          (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
      classes[c] = static_cast<std::uint8_t>((bert::is_punctuation(c) ? 1 : 0) | (word ? 2 : 0));
    }
    return classes;
  }();
  std::size_t start = 0;
  for (std::size_t i = 0; i < chunk.size(); ++i) {
    const std::uint8_t cls = kClasses[static_cast<unsigned char>(chunk[i])];
    if (isolate_punctuation) {
      if ((cls & 1) == 0) continue;
      if (i > start) pieces.push_back(chunk.substr(start, i - start));
      pieces.push_back(chunk.substr(i, 1));
      start = i + 1;
    } else if (i > start && (cls & 2) != (kClasses[static_cast<unsigned char>(chunk[i - 1])] & 2)) {
      pieces.push_back(chunk.substr(start, i - start));
      start = i;
    }
  }
  if (chunk.size() > start) pieces.push_back(chunk.substr(start));
}

}  // namespace hf

std::vector<HfWordCount> count_hf_training_words(const PretrainedTokenizer& tokenizer,
                                                 const std::vector<std::string>& files,
                                                 unsigned threads) {
  using namespace hf;
  WordCounts total;
  // One table per worker for all chunks, merged at the end: merging each chunk's
  // table under a lock kept the second thread waiting.
  const unsigned workers = resolve_threads(threads);
  std::vector<WordCounts> per_worker(workers);
  const Shortcuts shortcuts{ascii_word_rule(tokenizer.pipeline()),
                            metaspace_line_replacement(tokenizer.pipeline())};
  for (const std::string& file : files) {
    const std::string content = read_whole(file);
    if (const auto bad = utf8::find_invalid(content)) {
      const auto line = 1 + std::count(content.begin(),
                                       content.begin() + static_cast<std::ptrdiff_t>(*bad), '\n');
      throw Error(file + ":" + std::to_string(line) + ": not valid UTF-8 (byte " +
                  std::to_string(*bad) + "); HF's trainer refuses such a file too");
    }
    const std::vector<std::string_view> chunks = chunks_of(content);
    parallel_for_workers(chunks.size(), workers, [&](unsigned worker, std::size_t c) {
      count_chunk(tokenizer, shortcuts, chunks[c], per_worker[worker]);
    });
  }
  for (auto& counts : per_worker) {
    if (total.empty())
      total = std::move(counts);
    else
      total.merge(counts);
    counts = WordCounts();
  }
  std::vector<HfWordCount> words;
  words.reserve(total.size());
  for (auto& entry : std::move(total).take_entries())
    words.push_back({std::move(entry.word), entry.count});
  return words;
}

}  // namespace tokenlab
