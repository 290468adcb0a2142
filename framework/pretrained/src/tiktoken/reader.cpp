// tiktoken's encodings: a rank file ("base64(token bytes) rank" per line) with
// the pattern and special tokens of a named encoding, or the encoder JSON of
// npm tiktoken (pat_str, special_tokens, bpe_ranks).
//
// The pipeline is tiktoken's: special tokens cut out first, then the pattern's
// matches (text between matches is dropped, as tiktoken's find_iter loop does),
// then byte-pair merging by the rank of the merged bytes.
#include <rapidjson/document.h>
#include <rapidjson/error/en.h>

#include <algorithm>
#include <array>
#include <bit>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <deque>
#include <exception>
#include <mutex>
#include <optional>
#include <system_error>
#include <thread>
#include <type_traits>

#include "byte_level/byte_level_encoder.hpp"
#include "byte_level/token_rows.hpp"
#include "compiled/file_stamp.hpp"
#include "json_value.hpp"
#include "tiktoken/compiled_tiktoken.hpp"
#include "tiktoken/in_place.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/json_nesting.hpp"
#include "tokenlab/lines.hpp"
#include "tokenlab/pretrained/components.hpp"
#include "tokenlab/pretrained/formats.hpp"
#include "tokenlab/utf8.hpp"

namespace tokenlab {
namespace {

struct Encoding {
  std::string_view name;
  std::string_view pattern;
  std::vector<std::pair<std::string, TokenId>> specials;
};

// tiktoken_ext/openai_public.py
std::optional<Encoding> named_encoding(std::string_view name) {
  if (name == "gpt2" || name == "r50k_base" || name == "p50k_base")
    return Encoding{name, kGpt2Pattern, {{"<|endoftext|>", 50256}}};
  if (name == "p50k_edit")
    return Encoding{name,
                    kGpt2Pattern,
                    {{"<|endoftext|>", 50256},
                     {"<|fim_prefix|>", 50281},
                     {"<|fim_middle|>", 50282},
                     {"<|fim_suffix|>", 50283}}};
  if (name == "cl100k_base")
    return Encoding{name,
                    kCl100kPattern,
                    {{"<|endoftext|>", 100257},
                     {"<|fim_prefix|>", 100258},
                     {"<|fim_middle|>", 100259},
                     {"<|fim_suffix|>", 100260},
                     {"<|endofprompt|>", 100276}}};
  if (name == "o200k_base")
    return Encoding{name, kO200kPattern, {{"<|endoftext|>", 199999}, {"<|endofprompt|>", 200018}}};
  return std::nullopt;
}

// Strict base64 (padding required, as tiktoken's files have it) appended to
// out; false if bad (out then holds part of it).
bool append_base64(std::string_view text, std::string& out) {
  static const std::array<signed char, 256> kValue = [] {
    std::array<signed char, 256> v{};
    v.fill(-1);
    const std::string_view alphabet =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (std::size_t i = 0; i < alphabet.size(); ++i)
      v[static_cast<unsigned char>(alphabet[i])] = static_cast<signed char>(i);
    return v;
  }();
  if (text.empty() || text.size() % 4 != 0) return false;
  // Written in place, then cut to the padding: appending a byte at a time
  // (a capacity check each) was most of this function's time.
  const std::size_t start = out.size();
  out.resize(start + text.size() / 4 * 3);
  char* to = out.data() + start;
  // Every quad but the last has no padding: four lookups, whose signs say
  // at once whether any character is outside the alphabet.
  const std::size_t last = text.size() - 4;
  const auto* in = reinterpret_cast<const unsigned char*>(text.data());
  for (std::size_t i = 0; i < last; i += 4) {
    const int a = kValue[in[i]];
    const int b = kValue[in[i + 1]];
    const int c = kValue[in[i + 2]];
    const int d = kValue[in[i + 3]];
    if ((a | b | c | d) < 0) return false;
    const auto buffer = static_cast<std::uint32_t>((a << 18) | (b << 12) | (c << 6) | d);
    to[0] = static_cast<char>(buffer >> 16);
    to[1] = static_cast<char>((buffer >> 8) & 0xFF);
    to[2] = static_cast<char>(buffer & 0xFF);
    to += 3;
  }
  int padding = 0;
  for (std::size_t i = last; i < text.size(); i += 4) {
    std::uint32_t buffer = 0;
    for (std::size_t j = 0; j < 4; ++j) {
      const char c = text[i + j];
      if (c == '=' && i + 4 == text.size() && j >= 2) {
        ++padding;
        buffer <<= 6;
        continue;
      }
      if (padding > 0) return false;
      const signed char v = kValue[static_cast<unsigned char>(c)];
      if (v < 0) return false;
      buffer = (buffer << 6) | static_cast<std::uint32_t>(v);
    }
    *to++ = static_cast<char>((buffer >> 16) & 0xFF);
    *to++ = static_cast<char>((buffer >> 8) & 0xFF);
    *to++ = static_cast<char>(buffer & 0xFF);
  }
  out.resize(out.size() - static_cast<std::size_t>(padding));
  return true;
}

std::optional<std::string> decode_base64(std::string_view text) {
  std::string out;
  if (!append_base64(text, out)) return std::nullopt;
  return out;
}

// tiktoken's decode gives bytes; as text, invalid sequences become U+FFFD.
class BytesDecoder final : public DecoderStep {
 public:
  void decode(std::vector<std::string>& tokens) const override {
    std::string joined;
    for (const auto& t : tokens) joined += t;
    tokens.assign(1, utf8::replace_invalid(joined));
  }
  [[nodiscard]] std::string describe() const override { return "bytes (invalid UTF-8 as U+FFFD)"; }
};

// where() names the place in messages; it is called only on an error (200k
// message prefixes built for nothing were a tenth of loading o200k).
template <class Where>
void insert_rank(TokenTable& table, std::string token, std::uint64_t rank, const Where& where) {
  if (rank > TokenTable::kMaxId)
    throw Error(where() + ": rank " + std::to_string(rank) + " is too large");
  if (table.token(static_cast<TokenId>(rank)))
    throw Error(where() + ": rank " + std::to_string(rank) + " is given twice");
  table.insert(static_cast<TokenId>(rank), std::move(token), where);
}

// Where a file's rows go. The reader tries the fused sink first when the
// pattern has a hand-written matcher; the table sink is the general one, and
// the one that spells the error of a file the fused sink gave up on.
//
// A sink has insert_new(rows) (TokenTable::insert_new's contract: the index of
// the first row not inserted) and insert_rank(token, rank, where) for a row
// insert_new stopped at, or one the parser could not batch (both throw for a
// row that is an error).

// The eager TokenTable, as before the fused sink: its clashes are the errors.
class TableSink {
 public:
  explicit TableSink(std::size_t expected) : table_(std::make_shared<TokenTable>()) {
    // At most a token a line or field: one allocation of each table, no rehash.
    table_->reserve(expected);
  }
  std::size_t insert_new(std::span<const TokenTable::Row> rows) { return table_->insert_new(rows); }
  template <class Where>
  void insert_rank(std::string token, std::uint64_t rank, const Where& where) {
    tokenlab::insert_rank(*table_, std::move(token), rank, where);
  }
  std::shared_ptr<TokenTable> take() { return std::move(table_); }

 private:
  std::shared_ptr<TokenTable> table_;
};

// Thrown by FusedSink at anything the table sink would refuse; the reader then
// reads the file again through a TableSink, which throws the error itself.
struct FusedSinkGaveUp {};

// The tokens straight into the fused encoder's byte table, with no
// TokenTable: the ranks seen kept as bits, a token given twice caught by the
// byte table (tiktoken's tokens are bytes, which is what TokenTable compares).
// The table is built later from the byte table, if anything asks for it.
class FusedSink {
 public:
  FusedSink(std::string_view pattern, std::size_t expected)
      : encoder_(std::make_shared<ByteLevelEncoder>(pattern, UnicodeVersion::library,
                                                    ByteLevelEncoder::Rule::ranks, true, expected)),
        seen_(expected, false) {
    entries_.reserve(kRowsAtOnce);
  }
  std::size_t insert_new(std::span<const TokenTable::Row> rows) {
    entries_.clear();
    for (const TokenTable::Row& row : rows) {
      if (row.id > TokenTable::kMaxId) throw FusedSinkGaveUp{};
      if (row.id >= seen_.size())
        seen_.resize(std::max<std::size_t>(std::size_t{row.id} + 1, seen_.size() * 2), false);
      if (seen_[row.id]) throw FusedSinkGaveUp{};
      seen_[row.id] = true;
      id_limit_ = std::max<std::size_t>(id_limit_, std::size_t{row.id} + 1);
      entries_.push_back({row.token, row.id});
    }
    if (encoder_->add_tokens(entries_) != 0) throw FusedSinkGaveUp{};
    count_ += rows.size();
    return rows.size();
  }
  template <class Where>
  void insert_rank(std::string, std::uint64_t, const Where&) {
    throw FusedSinkGaveUp{};  // only a row that is an error comes here
  }
  [[nodiscard]] bool has_rank(TokenId id) const { return id < seen_.size() && seen_[id]; }
  [[nodiscard]] std::size_t count() const { return count_; }
  [[nodiscard]] std::size_t id_limit() const { return id_limit_; }
  [[nodiscard]] const std::shared_ptr<ByteLevelEncoder>& encoder() const { return encoder_; }

 private:
  static constexpr std::size_t kRowsAtOnce = 4096;
  std::shared_ptr<ByteLevelEncoder> encoder_;
  std::vector<bool> seen_;
  std::vector<byte_level_detail::ByteTable::Entry> entries_;
  std::size_t count_ = 0;
  std::size_t id_limit_ = 0;
};

// The fused sink's inserts on a second thread, a chunk of rows at a time,
// while the parser decodes the next chunk (threads >= 2). Inserting into the
// byte table (its cache misses) and decoding base64 were each about a quarter
// of loading o200k; on one thread they took turns. The work is speculative,
// as the tokenizer.json reader's second thread is (hf/list_prefetch.hpp):
// the chunks are inserted in file order, so the table is the one a single
// thread builds, and when the sink gives up (a rank or a token given twice)
// the parser throws FusedSinkGaveUp at its next hand-off, and read_rows
// reads the file again on one thread through the table sink, which spells
// the error in file order.
class ChunkInserter {
 public:
  /// A chunk's rows and the decoded bytes their tokens view.
  struct Chunk {
    std::string bytes;
    std::vector<TokenTable::Row> rows;
  };

  /// Throws std::system_error when the thread cannot be started.
  explicit ChunkInserter(FusedSink& sink) : sink_(sink), spare_(reserved_spares()) {
    thread_ = std::thread([this] { run(); });
  }
  ChunkInserter(const ChunkInserter&) = delete;
  ChunkInserter& operator=(const ChunkInserter&) = delete;
  ~ChunkInserter() {
    {
      const std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    changed_.notify_all();
    thread_.join();
  }

  /// Takes chunk (left empty, with a spare chunk's capacity when there is
  /// one); waits while kDepth chunks are queued. Throws FusedSinkGaveUp once
  /// the sink has.
  void push(Chunk& chunk) {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return queue_.size() < kDepth || failed(); });
    rethrow_failure();
    queue_.push_back(std::move(chunk));
    chunk = Chunk();
    if (!spare_.empty()) {
      chunk = std::move(spare_.back());
      spare_.pop_back();
    }
    lock.unlock();
    changed_.notify_all();
  }

  /// Waits until every chunk pushed is inserted; throws FusedSinkGaveUp (or
  /// what the insert threw) if the sink gave up.
  void drain() {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return (queue_.empty() && !busy_) || failed(); });
    rethrow_failure();
  }

 private:
  static constexpr std::size_t kDepth = 4;

  // Room for every chunk there can be (kDepth queued, one being inserted, one
  // the parser fills), so that the thread's push_back never allocates.
  static std::vector<Chunk> reserved_spares() {
    std::vector<Chunk> spares;
    spares.reserve(kDepth + 2);
    return spares;
  }

  [[nodiscard]] bool failed() const { return gave_up_ || error_ != nullptr; }
  void rethrow_failure() const {
    if (error_) std::rethrow_exception(error_);
    if (gave_up_) throw FusedSinkGaveUp{};
  }

  void run() {
    std::unique_lock lock(mutex_);
    for (;;) {
      changed_.wait(lock, [&] { return !queue_.empty() || stopping_; });
      if (stopping_) return;  // drained already, or the parser threw: abandoned
      if (failed()) {
        queue_.clear();  // after a failure nothing more is inserted
        continue;
      }
      Chunk chunk = std::move(queue_.front());
      queue_.pop_front();
      busy_ = true;
      lock.unlock();
      bool gave_up = false;
      std::exception_ptr error;
      try {
        sink_.insert_new(chunk.rows);  // the whole chunk, or it throws
      } catch (const FusedSinkGaveUp&) {
        gave_up = true;
      } catch (...) {
        error = std::current_exception();
      }
      chunk.bytes.clear();
      chunk.rows.clear();
      lock.lock();
      busy_ = false;
      gave_up_ = gave_up_ || gave_up;
      if (error && !error_) error_ = error;
      spare_.push_back(std::move(chunk));
      changed_.notify_all();
    }
  }

  FusedSink& sink_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Chunk> queue_;
  std::vector<Chunk> spare_;
  bool busy_ = false;
  bool stopping_ = false;
  bool gave_up_ = false;
  std::exception_ptr error_;
  std::thread thread_;  // started in the body, once every member is made
};

// A file's tokens decoded a chunk at a time and handed to the sink together
// (TokenTable::insert_new overlaps their cache misses, a fifth of loading
// o200k when each waited on its own; the byte table's insert does the same).
// A chunk's bytes are reused once its rows are in (the tables copy what they
// keep): one buffer for the whole file's bytes was 1.7 MB of fresh pages for
// o200k. A row that clashes goes to the sink's insert_rank, which throws its
// error naming where it came from; flush() before throwing any other error,
// so that errors keep file order.
template <class Sink, class Place>
class RankRows {
 public:
  /// place(n) names the place n (a line, a byte offset) in an error. With
  /// threads >= 2 and the fused sink, the rows are inserted on a second
  /// thread (ChunkInserter) while the next are decoded.
  RankRows(Sink& sink, const Place& place, unsigned threads) : sink_(sink), place_(place) {
    reserve(chunk_);
    if constexpr (std::is_same_v<Sink, FusedSink>) {
      try {
        if (threads >= 2) inserter_.emplace(sink);
      } catch (const std::system_error&) {
        // no second thread to be had: the rows are inserted on this one
      }
    }
  }
  /// False when field is not base64 or rank is too large (nothing added).
  bool add(std::string_view field, std::uint64_t rank, std::size_t place) {
    if (rank > TokenTable::kMaxId) return false;
    // Base64 is longer than its bytes: with field.size() to spare, the bytes
    // the chunk's rows view do not move.
    if (chunk_.bytes.capacity() - chunk_.bytes.size() < field.size()) {
      hand_over();
      if (chunk_.bytes.capacity() < field.size()) chunk_.bytes.reserve(field.size());
    }
    std::string& bytes = chunk_.bytes;
    const std::size_t start = bytes.size();
    if (!append_base64(field, bytes)) {
      bytes.resize(start);
      return false;
    }
    chunk_.rows.push_back({static_cast<TokenId>(rank), std::string_view(bytes).substr(start)});
    if (!inserter_) places_.push_back(place);      // the fused sink's refusal is to give up
    if (chunk_.rows.size() == kRows) hand_over();  // the rows stay in cache
    return true;
  }
  /// Inserts the rows gathered (with a second thread, waits for every row so far).
  void flush() {
    hand_over();
    if (inserter_) inserter_->drain();
  }

 private:
  static constexpr std::size_t kRows = 4096;
  static constexpr std::size_t kChunkBytes = std::size_t{64} << 10;  // o200k: about 28 KB a chunk

  static void reserve(ChunkInserter::Chunk& chunk) {
    chunk.bytes.reserve(kChunkBytes);
    chunk.rows.reserve(kRows);
  }

  // The chunk's rows to the sink, or to the second thread; the chunk is then
  // empty, with room for the next.
  void hand_over() {
    if (chunk_.rows.empty()) {
      chunk_.bytes.clear();
      return;
    }
    if (inserter_) {
      inserter_->push(chunk_);  // a spare chunk back, or an empty one
      if (chunk_.bytes.capacity() < kChunkBytes) reserve(chunk_);
      return;
    }
    const std::vector<TokenTable::Row>& rows = chunk_.rows;
    for (std::size_t done = 0; done < rows.size(); ++done) {  // ++: a repeated row, skipped
      done += sink_.insert_new(std::span(rows).subspan(done));
      if (done == rows.size()) break;
      const TokenTable::Row& row = rows[done];
      sink_.insert_rank(std::string(row.token), row.id, [&] { return place_(places_[done]); });
    }
    chunk_.rows.clear();
    chunk_.bytes.clear();
    places_.clear();
  }

  Sink& sink_;
  const Place& place_;
  ChunkInserter::Chunk chunk_;
  std::vector<std::size_t> places_;
  // Last: destroyed (its thread joined) first, while the chunks it holds live.
  std::optional<ChunkInserter> inserter_;
};

// What build needs besides the tokens: the checks of the bytes and the
// special tokens, in this order for either sink.
struct EncodingParts {
  std::string_view pattern;
  const std::vector<std::pair<std::string, TokenId>>& specials;
  const std::string& source;
};

void refuse_missing_byte(unsigned byte, const std::string& source) {
  throw Error(source + ": the byte " + std::to_string(byte) +
              " has no rank, so some text could not be encoded");
}

template <class HasRank>
void add_specials(PretrainedPipeline& p, const EncodingParts& parts, const HasRank& has_rank) {
  for (const auto& [content, id] : parts.specials) {
    if (has_rank(id))
      throw Error(parts.source + ": the special token " + content + " has id " +
                  std::to_string(id) + ", which is the rank of another token");
    AddedToken token;
    token.content = content;
    token.id = id;
    token.special = true;
    p.added.add(std::move(token));
  }
}

void add_steps(PretrainedPipeline& p, std::string_view pattern) {
  p.format = "tiktoken";
  p.pre_tokenizers.push_back(
      make_split_pre_tokenizer(std::string(pattern), true, SplitBehavior::removed, true,
                               UnicodeVersion::library));  // tiktoken's classes (15.0)
  p.model = make_tiktoken_model(p.tokens);
  p.decoders.push_back(std::make_unique<BytesDecoder>());
}

// The pipeline of a file read into a TokenTable: one whose pattern has no
// hand-written matcher, and so no fused encoder (a file with one comes here
// only when the fused sink gave up, to have its error spelled).
PretrainedPipeline build(std::shared_ptr<TokenTable> table, const EncodingParts& parts) {
  for (unsigned b = 0; b < 256; ++b)
    if (!table->find(std::string(1, static_cast<char>(b)))) refuse_missing_byte(b, parts.source);
  PretrainedPipeline p;
  add_specials(p, parts, [&](TokenId id) { return table->token(id) != nullptr; });
  p.tokens = table;
  add_steps(p, parts.pattern);
  return p;
}

// The id -> token rows of a fused encoder's byte table (a deferred table's
// fill), in id order, as an eager read writes them (filled in slot order,
// --pieces on o200k took 6 ms more).
void fill_from_byte_table(TokenTable& table, const ByteLevelEncoder& encoder,
                          std::size_t id_limit) {
  const auto made =
      byte_level_detail::token_rows(encoder, id_limit, byte_level_detail::Spelling::bytes);
  table.reserve(id_limit);
  // No row clashes (the sink refused any file where one would); one that did
  // would be skipped, never given a second id.
  const std::span<const TokenTable::Row> rows(made.rows);
  for (std::size_t done = 0; done < rows.size(); ++done)
    done += table.insert_new(rows.subspan(done));
}

PretrainedPipeline build(FusedSink& sink, const EncodingParts& parts) {
  ByteLevelEncoder& encoder = *sink.encoder();
  for (unsigned b = 0; b < 256; ++b) {
    const char byte = static_cast<char>(b);
    const TokenId id = encoder.token_of(std::string_view(&byte, 1));
    if (id == byte_level_detail::ByteTable::kNone) refuse_missing_byte(b, parts.source);
    encoder.set_byte(static_cast<unsigned char>(b), id);
  }
  encoder.finish();
  PretrainedPipeline p;
  add_specials(p, parts, [&](TokenId id) { return sink.has_rank(id); });
  // The id -> token table, for decoding and --pieces, built from the byte
  // table the first time it is asked for: encoding ids never reads it, and
  // building it was a quarter of loading o200k (and 10 MB of memory).
  const std::size_t id_limit = sink.id_limit();
  p.tokens = TokenTable::deferred(
      sink.count(), id_limit,
      [encoder = std::shared_ptr<const ByteLevelEncoder>(sink.encoder()),
       id_limit](TokenTable& table) { fill_from_byte_table(table, *encoder, id_limit); });
  add_steps(p, parts.pattern);
  p.byte_level = sink.encoder();
  return p;
}

// Reads the rows parse gives it into the fused encoder when the pattern has
// one, else (or when the file has an error) into a TokenTable.
template <class Parse>
PretrainedPipeline read_rows(std::size_t expected, const EncodingParts& parts, const Parse& parse) {
  if (is_preset_pattern(parts.pattern)) {
    try {
      FusedSink sink(parts.pattern, expected);
      parse(sink);
      return build(sink, parts);
    } catch (const FusedSinkGaveUp&) {
      // Read again below, where the error is spelled.
    }
  }
  TableSink sink(expected);
  parse(sink);
  return build(sink.take(), parts);
}

PretrainedPipeline read_rank_file(std::string_view content, const std::string& source,
                                  std::string_view encoding, unsigned threads) {
  const auto named = named_encoding(encoding);
  if (!named)
    throw Error(source +
                ": a tiktoken rank file does not name its pattern and special tokens; "
                "say which encoding it is with --format tiktoken:NAME (gpt2, r50k_base, "
                "p50k_base, p50k_edit, cl100k_base, o200k_base)" +
                (encoding.empty() ? std::string() : "; '" + std::string(encoding) + "' is none"));
  const std::size_t lines =
      static_cast<std::size_t>(std::count(content.begin(), content.end(), '\n')) + 1;
  const auto line_place = [&](std::size_t n) { return source + ": line " + std::to_string(n); };
  const EncodingParts parts{named->pattern, named->specials, source};
  return read_rows(lines, parts, [&](auto& sink) {
    RankRows rows(sink, line_place, threads);
    for (const auto& [line_number, raw_line] : numbered_lines(content)) {
      const std::string_view line = strip_cr(raw_line);
      if (line.empty()) continue;
      const auto where = [&, n = line_number] {
        rows.flush();  // the lines before this one first
        return line_place(n);
      };
      const auto space = line.find(' ');
      if (space == std::string_view::npos || line.find(' ', space + 1) != std::string_view::npos)
        throw Error(where() + ": expected \"base64 rank\"");
      std::uint64_t rank = 0;
      const std::string_view digits = line.substr(space + 1);
      const std::string_view base64 = line.substr(0, space);
      bool number = !digits.empty() && digits.size() <= 9;
      for (const char c : digits) {
        number = number && c >= '0' && c <= '9';
        rank = rank * 10 + static_cast<std::uint64_t>(c - '0');
      }
      if (number && rows.add(base64, rank, line_number)) continue;
      if (!decode_base64(base64))
        throw Error(where() + ": \"" + std::string(base64) + "\" is not base64");
      if (digits.empty() || digits.size() > 9) throw Error(where() + ": bad rank");
      if (!number)
        throw Error(where() + ": the rank \"" + std::string(digits) + "\" is not a number");
      sink.insert_rank(*decode_base64(base64), rank, where);  // too large: throws
    }
    rows.flush();
  });
}

// bpe_ranks' fields end at a space or a newline; both are found eight bytes
// at a time (the high bit of each byte of word that is one of them; no carry
// crosses a byte). Two std::count passes (GCC does not vectorize them at -O2)
// and find_first_of (a memchr over the two delimiters for each byte) were a
// third of loading o200k.
std::uint64_t separator_bytes(std::uint64_t word) noexcept {
  constexpr std::uint64_t kLow7 = 0x7F7F7F7F7F7F7F7Full;
  const auto zero_bytes = [](std::uint64_t x) { return ~(((x & kLow7) + kLow7) | x) & ~kLow7; };
  return zero_bytes(word ^ 0x2020202020202020ull) | zero_bytes(word ^ 0x0A0A0A0A0A0A0A0Aull);
}

std::size_t count_separators(std::string_view text) noexcept {
  std::size_t count = 0;
  std::size_t i = 0;
  for (; i + 8 <= text.size(); i += 8) {
    std::uint64_t word;
    std::memcpy(&word, text.data() + i, 8);
    // The marks are 0x80 in their bytes: one a byte, summed by the multiply
    // (no popcnt instruction in baseline x86-64, and libgcc's is a call).
    count += static_cast<std::size_t>(((separator_bytes(word) >> 7) * 0x0101010101010101ull) >> 56);
  }
  for (; i < text.size(); ++i) count += text[i] == ' ' || text[i] == '\n';
  return count;
}

// The offset of the first space or newline at or after i, or text.size().
std::size_t next_separator(std::string_view text, std::size_t i) noexcept {
  for (; i + 8 <= text.size(); i += 8) {
    std::uint64_t word;
    std::memcpy(&word, text.data() + i, 8);
    if (const std::uint64_t marks = separator_bytes(word); marks != 0)
      return i + static_cast<std::size_t>(std::countr_zero(marks) >> 3);
  }
  while (i < text.size() && text[i] != ' ' && text[i] != '\n') ++i;
  return i;
}

// npm tiktoken's encoder JSON in text[0, size), which the in-situ parse
// rewrites; text[size] is '\0'.
PretrainedPipeline read_encoder_json(char* text, std::size_t size, const std::string& source,
                                     unsigned threads) {
  // before RapidJSON recurses
  check_json_nesting(std::string_view(text, size), kMaxJsonNesting, source);
  rapidjson::Document document;
  document.ParseInsitu(text);
  if (document.HasParseError())
    throw Error(source + ": byte " + std::to_string(document.GetErrorOffset()) +
                ": malformed JSON: " + rapidjson::GetParseError_En(document.GetParseError()));
  const json::Value root(document, "", source);
  if (!root.is_object()) root.fail("expected a JSON object, found " + root.kind());
  root.refuse_duplicate_members();
  const std::string pattern(root.member("pat_str").string());
  const json::Value specials_value = root.member("special_tokens");
  if (!specials_value.is_object()) specials_value.fail("expected an object of token: id");
  std::vector<std::pair<std::string, TokenId>> specials;
  for (auto it = specials_value.raw().MemberBegin(); it != specials_value.raw().MemberEnd(); ++it) {
    const std::string name(it->name.GetString(), it->name.GetStringLength());
    const json::Value id(it->value, specials_value.child_path(name), source);
    const auto n = id.unsigned_integer();
    if (n > TokenTable::kMaxId) id.fail("id too large");
    specials.emplace_back(name, static_cast<TokenId>(n));
  }
  const json::Value ranks_value = root.member("bpe_ranks");
  const std::string_view ranks = ranks_value.string();
  const auto byte_place = [&](std::size_t at) {
    return source + ": bpe_ranks, byte " + std::to_string(at);
  };
  const EncodingParts parts{pattern, specials, source};
  return read_rows(count_separators(ranks) + 1, parts, [&](auto& sink) {
    RankRows rows(sink, byte_place, threads);
    // "! R" sets the rank of the next token; each token after it takes the next rank.
    std::uint64_t rank = 0;
    bool expect_rank = false;
    for (std::size_t begin = 0; begin < ranks.size();) {
      const std::size_t end = next_separator(ranks, begin);
      const std::string_view field = ranks.substr(begin, end - begin);
      const auto where = [&, at = begin] {
        rows.flush();  // the fields before this one first
        return byte_place(at);
      };
      const std::size_t at = begin;
      begin = end + 1;
      if (field.empty()) continue;
      if (expect_rank) {
        rank = 0;
        for (const char c : field) {
          if (c < '0' || c > '9' || rank > TokenTable::kMaxId)
            throw Error(where() + ": \"" + std::string(field) + "\" is not a rank");
          rank = rank * 10 + static_cast<std::uint64_t>(c - '0');
        }
        expect_rank = false;
        continue;
      }
      if (field == "!") {
        expect_rank = true;
        continue;
      }
      if (!rows.add(field, rank, at)) {
        if (!decode_base64(field))
          throw Error(where() + ": \"" + std::string(field) + "\" is not base64");
        sink.insert_rank(*decode_base64(field), rank, where);  // too large: throws
      }
      ++rank;
    }
    rows.flush();
  });
}

}  // namespace

namespace {

bool is_encoder_json(std::string_view content) noexcept {
  std::size_t first = 0;
  while (first < content.size() && (content[first] == ' ' || content[first] == '\n')) ++first;
  return first < content.size() && content[first] == '{';
}

}  // namespace

namespace {

// What tells a tiktoken file's stamp from a tokenizer.json's, and one
// encoding's from another's (the same bytes are two entries then).
std::string stamp_salt(std::string_view encoding) {
  return "tiktoken:" + std::string(encoding);
}

// The pipeline of a compiled-model entry (tiktoken/compiled_tiktoken.hpp), as
// build(FusedSink&) makes it from a file.
PretrainedPipeline build(tiktoken_detail::CompiledTiktoken compiled, std::string entry) {
  PretrainedPipeline p;
  p.compiled_entry = std::move(entry);
  for (auto& [content, id] : compiled.specials) {
    AddedToken token;
    token.content = std::move(content);
    token.id = id;
    token.special = true;
    p.added.add(std::move(token));
  }
  const std::size_t id_limit = compiled.id_limit;
  p.tokens = TokenTable::deferred(compiled.count, id_limit,
                                  [encoder = compiled.encoder, id_limit](TokenTable& table) {
                                    fill_from_byte_table(table, *encoder, id_limit);
                                  });
  add_steps(p, compiled.encoder->pattern());
  p.byte_level = std::move(compiled.encoder);
  return p;
}

// read(), through the compiled-model cache: an entry holds the fused
// encoder's tables and the special tokens, keyed by the file's bytes and the
// encoding that gives them their pattern.
// stamp: the file's, when read from one (load), remembered with the key once
// the key names an entry.
template <class Read>
PretrainedPipeline read_through(std::string_view content, std::string_view encoding,
                                const ModelCache& cache, const Read& read,
                                const compiled::FileStamp* stamp = nullptr,
                                std::int64_t stat_time_ns = 0) {
  std::optional<compiled::Digest> key;
  if (cache.applies_to(content.size())) {
    key = tiktoken_detail::compiled_key(content, encoding);
    if (auto hit = tiktoken_detail::read_compiled_tiktoken(cache, *key)) {
      if (stamp) compiled::remember_digest(cache, *stamp, stat_time_ns, stamp_salt(encoding), *key);
      return build(std::move(*hit), compiled::entry_path(cache, *key).string());
    }
  }
  PretrainedPipeline p = read();  // before an in-situ parse rewrites content: key is made
  // Best effort: a cache that cannot be written is no error of this file's.
  if (key && p.byte_level && tiktoken_detail::write_compiled_tiktoken(cache, *key, p) && stamp)
    compiled::remember_digest(cache, *stamp, stat_time_ns, stamp_salt(encoding), *key);
  return p;
}

}  // namespace

PretrainedPipeline read_tiktoken(std::string_view content, const std::string& source,
                                 std::string_view encoding, unsigned threads,
                                 const ModelCache& cache) {
  return read_through(content, encoding, cache, [&] {
    if (is_encoder_json(content)) {
      std::string text(content);  // parsed in situ
      return read_encoder_json(text.data(), text.size(), source, threads);
    }
    return read_rank_file(content, source, encoding, threads);
  });
}

PretrainedPipeline tiktoken_detail::read_tiktoken_file(pretrained_detail::FileBuffer& file,
                                                       std::size_t read_so_far,
                                                       const std::string& source,
                                                       std::string_view encoding, unsigned threads,
                                                       const ModelCache& cache) {
  std::optional<compiled::FileStamp> stamp;
  if (cache.applies_to(file.size())) {
    stamp = compiled::FileStamp::of(file.status());
    // Known by its stamp: the entry holds all a load needs, so the rest of
    // the file is not read at all.
    if (const auto key = compiled::recall_digest(cache, *stamp, stamp_salt(encoding)))
      if (auto hit = read_compiled_tiktoken(cache, *key)) {
        file.close();
        PretrainedPipeline p = build(std::move(*hit), compiled::entry_path(cache, *key).string());
        p.compiled_by_stamp = true;
        return p;
      }
  }
  file.read_except(read_so_far, {}, threads);
  file.close();
  char* const text = file.data();
  const std::size_t size = file.size();
  const std::string_view content(text, size);
  return read_through(
      content, encoding, cache,
      [&] {
        if (is_encoder_json(content)) return read_encoder_json(text, size, source, threads);
        return read_rank_file(content, source, encoding, threads);
      },
      stamp ? &*stamp : nullptr, file.stat_time_ns());
}

std::string detect_pretrained_format(std::string_view content) {
  std::size_t first = 0;
  while (first < content.size() && (content[first] == ' ' || content[first] == '\n' ||
                                    content[first] == '\r' || content[first] == '\t'))
    ++first;
  if (first < content.size() && content[first] == '{') {
    const std::string_view head = content.substr(0, 4096);
    if (head.find("\"bpe_ranks\"") != std::string_view::npos ||
        head.find("\"pat_str\"") != std::string_view::npos)
      return "tiktoken";
    return "tokenizer.json";
  }
  // A rank file: printable "base64 digits" lines.
  const std::size_t newline = content.find('\n');
  const std::string_view line = content.substr(0, newline);
  const auto space = line.find(' ');
  if (space != std::string_view::npos && space > 0 && space + 1 < line.size() &&
      decode_base64(line.substr(0, space)) &&
      line.substr(space + 1).find_first_not_of("0123456789\r") == std::string_view::npos)
    return "tiktoken";
  // A ModelProto starts with field 1 (pieces), length-delimited: tag 0x0A.
  if (!content.empty() && content[0] == '\x0A') return "sentencepiece";
  return "";
}

}  // namespace tokenlab
