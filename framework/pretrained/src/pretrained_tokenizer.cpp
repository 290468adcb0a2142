#include "tokenlab/pretrained/pretrained_tokenizer.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <ctime>
#include <fstream>
#include <memory>
#include <sstream>
#include <system_error>
#include <thread>
#include <unordered_map>

#include "byte_level/byte_level_encoder.hpp"
#include "file_buffer.hpp"
#include "hf/internal.hpp"
#include "sentencepiece/internal.hpp"
#include "tiktoken/in_place.hpp"
#include "tokenlab/alphabet.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/interruption.hpp"
#include "tokenlab/pretrained/components.hpp"
#include "tokenlab/pretrained/formats.hpp"
#include "tokenlab/utf8.hpp"

namespace tokenlab {

NormalizerStep::~NormalizerStep() = default;
PreTokenizerStep::~PreTokenizerStep() = default;
PretrainedModel::~PretrainedModel() = default;

std::vector<PretrainedModel::Segmentation> PretrainedModel::nbest(std::string_view,
                                                                  std::size_t) const {
  throw Error("the " + type() + " model has no n-best segmentation (its library has none)");
}
DecoderStep::~DecoderStep() = default;

PretrainedTokenizer::PretrainedTokenizer(std::shared_ptr<const PretrainedPipeline> pipeline)
    : pipeline_(std::move(pipeline)) {
  if (!pipeline_ || !pipeline_->model || !pipeline_->tokens)
    throw Error("a pretrained tokenizer needs a model and its vocabulary");
}

namespace {

// The checks before a tokenizer file is read: its size, or an Error naming it.
std::uint64_t checked_file_size(const std::filesystem::path& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw Error(path.string() + ": is a directory, not a file");
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) throw Error(path.string() + ": cannot read: " + ec.message());
  if (size > kMaxPretrainedFileBytes)
    throw Error(path.string() + ": " + std::to_string(size) +
                " bytes is larger than any tokenizer file tokenlab reads (1 GiB)");
  return size;
}

// The bytes load reads before it knows a file's format: far more than
// detect_pretrained_format looks at (4 KiB, or a rank file's first line).
constexpr std::size_t kFormatHeadBytes = std::size_t{64} << 10;

// What from_bytes and load read content as: the reader's kind and a tiktoken
// rank file's encoding, from format ("auto" detects it).
struct Reader {
  std::string kind;
  std::string encoding;
};
Reader reader_for(std::string_view content, const std::string& source, std::string_view format) {
  Reader r{std::string(format), ""};
  if (const auto colon = r.kind.find(':'); colon != std::string::npos) {
    r.encoding = r.kind.substr(colon + 1);
    r.kind.resize(colon);
  }
  if (r.kind == "auto") {
    r.kind = detect_pretrained_format(content);
    if (r.kind.empty())
      throw Error(source +
                  ": not a tokenizer file tokenlab recognises (tokenizer.json, tiktoken, "
                  "SentencePiece .model); give --format to say which it is");
  }
  if (r.kind != "tokenizer.json" && r.kind != "tiktoken" && r.kind != "sentencepiece")
    throw Error(source + ": unknown format '" + std::string(format) +
                "'; use tokenizer.json, tiktoken[:ENCODING] or sentencepiece");
  return r;
}

// A tiktoken or SentencePiece file (a tokenizer.json is read in place by the callers).
PretrainedPipeline read_other(const Reader& r, std::string_view content, const std::string& source,
                              unsigned threads, const ModelCache& cache) {
  if (r.kind == "tiktoken") return read_tiktoken(content, source, r.encoding, threads, cache);
  return read_sentencepiece(content, source);
}

PretrainedTokenizer tokenizer_of(PretrainedPipeline pipeline, const std::string& source) {
  pipeline.source = source;
  return PretrainedTokenizer(std::make_shared<const PretrainedPipeline>(std::move(pipeline)));
}

}  // namespace

std::string read_pretrained_file(const std::filesystem::path& path) {
  const auto size = checked_file_size(path);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path.string() + ": cannot open");
  std::string content(size, '\0');
  in.read(content.data(), static_cast<std::streamsize>(size));
  if (static_cast<std::uint64_t>(in.gcount()) != size) throw Error(path.string() + ": short read");
  return content;
}

namespace {

// Reads [begin, end) of fd into data + begin; false at an error or end of file.
bool read_file_range(int fd, char* data, std::size_t begin, std::size_t end) noexcept {
  while (begin < end) {
    const ssize_t n = ::pread(fd, data + begin, end - begin, static_cast<off_t>(begin));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    begin += static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace

namespace pretrained_detail {

FileBuffer FileBuffer::open(const std::filesystem::path& path) {
  const auto size = static_cast<std::size_t>(checked_file_size(path));
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw Error(path.string() + ": cannot open");
  constexpr std::size_t kPage = 4096;
  const std::size_t mapped = (size + kPage) / kPage * kPage;  // room for the NUL after it
  FileBuffer buffer(nullptr, size, mapped);
  buffer.fd_ = fd;
  buffer.path_ = path.string();
  timespec now{};
  (void)::clock_gettime(CLOCK_REALTIME, &now);  // before the fstat: file_stamp.hpp says why
  buffer.stat_time_ns_ = std::int64_t{now.tv_sec} * 1'000'000'000 + now.tv_nsec;
  if (::fstat(fd, &buffer.status_) != 0 || static_cast<std::size_t>(buffer.status_.st_size) != size)
    throw Error(buffer.path_ + ": cannot read: it changed while being opened");
  void* memory =
      ::mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (memory == MAP_FAILED) throw std::bad_alloc();
  buffer.data_ = static_cast<char*>(memory);  // zero: the NUL after the file is there
  return buffer;
}

FileBuffer::~FileBuffer() {
  close();
  if (data_ != nullptr) (void)::munmap(data_, mapped_);
}

void FileBuffer::close() noexcept {
  if (fd_ >= 0) (void)::close(fd_);
  fd_ = -1;
}

void FileBuffer::read_range(std::size_t begin, std::size_t end) {
  if (fd_ < 0 || end > size_ || !read_file_range(fd_, data_, begin, end))
    throw Error(path_ + ": short read");
}

void FileBuffer::read_stretch(std::size_t begin, std::size_t end, unsigned threads) {
  // With a second thread, a large stretch is read in two halves at once: the
  // copy, and the kernel's zeroing of the pages it copies into, were 14 ms of
  // Gemma 3's 33 MB on one thread (docs/performance.md, tenth round). The
  // halves meet at a page boundary, so that they never share a page.
  constexpr std::size_t kPage = 4096;
  constexpr std::size_t kTwoHalvesFrom = std::size_t{8} << 20;
  if (threads < 2 || end - begin < kTwoHalvesFrom) {
    read_range(begin, end);
    return;
  }
  const std::size_t middle = (begin + (end - begin) / 2) / kPage * kPage;
  bool second_whole = false;
  std::thread second;
  try {
    second = std::thread([&] { second_whole = read_file_range(fd_, data_, middle, end); });
  } catch (const std::system_error&) {
    // No thread to be had: this one reads the second half too.
  }
  bool whole = read_file_range(fd_, data_, begin, middle);
  if (second.joinable())
    second.join();
  else
    second_whole = read_file_range(fd_, data_, middle, end);
  if (!whole || !second_whole) throw Error(path_ + ": short read");
}

void FileBuffer::read_except(std::size_t from,
                             std::span<const std::pair<std::uint64_t, std::uint64_t>> skipped,
                             unsigned threads) {
  for (const auto& [begin, end] : skipped) {
    if (begin < from || end < begin || end > size_) throw Error(path_ + ": short read");
    read_stretch(from, static_cast<std::size_t>(begin), threads);
    from = static_cast<std::size_t>(end);
  }
  read_stretch(from, size_, threads);
}

FileBuffer FileBuffer::read(const std::filesystem::path& path, unsigned threads) {
  FileBuffer buffer = open(path);
  buffer.read_stretch(0, buffer.size_, threads);
  buffer.close();
  return buffer;
}

}  // namespace pretrained_detail

PretrainedTokenizer PretrainedTokenizer::load(const std::filesystem::path& path,
                                              std::string_view format, unsigned threads,
                                              const ModelCache& cache) {
  pretrained_detail::FileBuffer file = pretrained_detail::FileBuffer::open(path);
  const std::string source = path.string();
  // The format from the file's head (detect_pretrained_format reads 4 KiB and
  // a rank file's first line): a tokenizer.json that the compiled-model cache
  // remembers is then read without its lists.
  std::size_t head = std::min(file.size(), kFormatHeadBytes);
  file.read_range(0, head);
  // Nothing but white space so far: the format is told by what follows it.
  if (file.view().substr(0, head).find_first_not_of(" \t\r\n") == std::string_view::npos) {
    file.read_range(head, file.size());
    head = file.size();
  }
  const std::string_view head_bytes = file.view().substr(0, head);
  std::string kind = resolve_pretrained_format(head_bytes, source, format);
  if (kind.empty()) kind = "auto";  // reader_for says why nothing fits
  const Reader r = reader_for(head_bytes, source, kind);
  if (r.kind == "tokenizer.json")
    return tokenizer_of(hf_detail::read_tokenizer_json_file(file, head, source, threads, cache),
                        source);
  if (r.kind == "tiktoken")
    return tokenizer_of(
        tiktoken_detail::read_tiktoken_file(file, head, source, r.encoding, threads, cache),
        source);
  file.read_except(head, {}, threads);  // a SentencePiece .model
  file.close();
  return tokenizer_of(read_other(r, file.view(), source, threads, cache), source);
}

std::string resolve_pretrained_format(std::string_view content, const std::string& file_name,
                                      std::string_view format) {
  if (format != "auto" && format != "tiktoken") return std::string(format);
  // npm tiktoken's encoder JSON names its pattern and specials; a rank file does not.
  const bool json = !content.empty() && content.front() == '{';
  const std::string by_name = "tiktoken:" + std::filesystem::path(file_name).stem().string();
  if (format == "tiktoken") return json ? "tiktoken" : by_name;
  const std::string detected = detect_pretrained_format(content);
  return detected == "tiktoken" && !json ? by_name : detected;
}

PretrainedTokenizer PretrainedTokenizer::from_bytes(std::string content, const std::string& source,
                                                    std::string_view format, unsigned threads,
                                                    const ModelCache& cache) {
  const Reader r = reader_for(content, source, format);
  if (r.kind == "tokenizer.json")
    return tokenizer_of(read_tokenizer_json(std::move(content), source, threads, cache), source);
  return tokenizer_of(read_other(r, content, source, threads, cache), source);
}

namespace {

// The buffers one run of the pipeline works in. A thread keeps one set across
// its runs, so that a line does not allocate its normalized copy and grow its
// pieces' vectors anew: on two threads those allocations, a few a line, were a
// tenth of encoding BERT, most of it waiting on the allocator's lock (the
// program keeps one arena, for huge pages). A run started from inside another
// one's callback (for_each_piece's caller encoding a piece) gets its own set.
struct PipelineScratch {
  std::string normalized;
  std::vector<std::string> pieces;
  std::vector<std::string> next;
  bool in_use = false;
};

class ScratchLease {
 public:
  ScratchLease() {
    thread_local PipelineScratch mine;
    if (mine.in_use) {
      own_ = std::make_unique<PipelineScratch>();
      scratch_ = own_.get();
      return;
    }
    mine.in_use = true;
    scratch_ = &mine;
  }
  ~ScratchLease() {
    if (own_) return;
    // One very long line must not keep its buffers for the thread's life.
    constexpr std::size_t kKeptBytes = std::size_t{1} << 20;
    constexpr std::size_t kKeptPieces = std::size_t{1} << 14;
    if (scratch_->normalized.capacity() > kKeptBytes) std::string().swap(scratch_->normalized);
    for (auto* v : {&scratch_->pieces, &scratch_->next})
      if (v->capacity() > kKeptPieces) std::vector<std::string>().swap(*v);
    scratch_->in_use = false;
  }
  ScratchLease(const ScratchLease&) = delete;
  ScratchLease& operator=(const ScratchLease&) = delete;
  PipelineScratch* operator->() const noexcept { return scratch_; }

 private:
  PipelineScratch* scratch_ = nullptr;
  std::unique_ptr<PipelineScratch> own_;
};

// Runs the pipeline up to the model: on_piece(piece) for each piece the model
// must encode, on_added(id, text) for each added token, in text order. With
// whole_segments, the pre-tokenizers are skipped: on_piece gets each normalized
// segment between added tokens (for p.byte_level, which pre-tokenizes itself).
template <class OnPiece, class OnAdded>
void run_pipeline(const PretrainedPipeline& p, std::string_view text, OnPiece&& on_piece,
                  OnAdded&& on_added, bool whole_segments = false) {
  // Every component reads code points (as HF's and tiktoken's take Rust strings):
  // ill-formed text is refused once here, never read past its end.
  if (const auto bad = utf8::find_invalid(text))
    throw Error("text to encode is not valid UTF-8 (byte " + std::to_string(*bad) + ")");
  const ScratchLease lease;
  std::string& normalized = lease->normalized;
  std::vector<std::string>& pieces = lease->pieces;
  std::vector<std::string>& next = lease->next;
  // at_start: the segment begins where text begins (HF's original offset 0).
  const auto model_side = [&](std::string_view segment, bool at_start) {
    if (segment.empty()) return;
    if (p.pre_tokenizers.empty() || whole_segments) {
      on_piece(segment);
      return;
    }
    pieces.clear();
    // The first step splits the segment itself, not a copy of it.
    p.pre_tokenizers.front()->split(segment, at_start, pieces);
    for (std::size_t s = 1; s < p.pre_tokenizers.size(); ++s) {
      next.clear();
      for (std::size_t i = 0; i < pieces.size(); ++i)
        p.pre_tokenizers[s]->split(pieces[i], at_start && i == 0, next);
      pieces.swap(next);
    }
    for (std::size_t i = 0; i < pieces.size(); ++i) {
      if ((i & 255) == 255) throw_if_interrupted();  // a host may stop a long text
      on_piece(std::string_view(pieces[i]));
    }
  };
  const auto normalized_side = [&](std::string_view segment, bool at_start) {
    if (p.normalizers.empty() && !p.added.has_normalized()) {
      model_side(segment, at_start);
      return;
    }
    normalized.assign(segment);
    for (const auto& step : p.normalizers) step->apply(normalized);
    if (!p.added.has_normalized()) {
      model_side(normalized, at_start);
      return;
    }
    const std::string whole = normalized;
    bool first = true;
    p.added.split(whole, /*normalized=*/true,
                  [&](std::string_view part, std::optional<TokenId> id) {
                    if (id)
                      on_added(*id, part);
                    else
                      model_side(part, at_start && first);
                    first = false;
                  });
  };
  if (!p.added.has_raw()) {
    normalized_side(text, true);
    return;
  }
  bool first = true;
  p.added.split(text, /*normalized=*/false,
                [&](std::string_view segment, std::optional<TokenId> id) {
                  if (id)
                    on_added(*id, segment);
                  else
                    normalized_side(segment, first);
                  first = false;
                });
}

}  // namespace

void PretrainedTokenizer::for_each_piece(
    std::string_view text, const std::function<void(std::string_view, bool)>& fn) const {
  run_pipeline(
      *pipeline_, text, [&](std::string_view piece) { fn(piece, false); },
      [&](TokenId, std::string_view part) { fn(part, true); });
}

void PretrainedTokenizer::encode(std::string_view text, std::vector<TokenId>& out) const {
  if (const ByteLevelEncoder* fused = pipeline_->byte_level.get()) {
    run_pipeline(
        *pipeline_, text, [&](std::string_view segment) { fused->encode(segment, out); },
        [&](TokenId id, std::string_view) { out.push_back(id); }, true);
    return;
  }
  const PretrainedModel& model = *pipeline_->model;
  run_pipeline(
      *pipeline_, text, [&](std::string_view piece) { model.encode(piece, out); },
      [&](TokenId id, std::string_view) { out.push_back(id); });
}

void PretrainedTokenizer::for_each_nbest(
    std::string_view text, std::size_t k,
    const std::function<void(std::string_view piece,
                             const std::vector<PretrainedModel::Segmentation>&)>& fn) const {
  const PretrainedModel& model = *pipeline_->model;
  if (!model.has_nbest()) (void)model.nbest({}, k);  // the model's own refusal
  run_pipeline(
      *pipeline_, text, [&](std::string_view piece) { fn(piece, model.nbest(piece, k)); },
      [&](TokenId id, std::string_view part) {
        fn(part, {PretrainedModel::Segmentation{{id}, 0.0}});
      });
}

std::vector<TokenId> PretrainedTokenizer::encode(std::string_view text) const {
  std::vector<TokenId> out;
  encode(text, out);
  return out;
}

std::string PretrainedTokenizer::decode(std::span<const TokenId> ids,
                                        bool skip_special_tokens) const {
  const PretrainedPipeline& p = *pipeline_;
  std::vector<std::string> tokens;
  tokens.reserve(ids.size());
  for (const TokenId id : ids) {
    const AddedToken* added = p.added.empty() ? nullptr : p.added.find(id);
    if (added) {
      if (skip_special_tokens && added->special) continue;
      tokens.push_back(added->content);
      continue;
    }
    const std::string* token = p.tokens->token(id);
    if (!token)
      throw Error("token id " + std::to_string(id) + " is not in the vocabulary of " + p.source +
                  " (" + std::to_string(vocabulary_size()) + " ids)");
    tokens.push_back(*token);
  }
  if (p.decoders.empty()) {
    std::string text;
    for (std::size_t i = 0; i < tokens.size(); ++i) {
      if (i > 0 && p.join_with_spaces_without_decoder) text += ' ';
      text += tokens[i];
    }
    return text;
  }
  for (const auto& step : p.decoders) step->decode(tokens);
  std::string text;
  for (const auto& t : tokens) text += t;
  return text;
}

std::size_t PretrainedTokenizer::vocabulary_size() const {
  return std::max(pipeline_->tokens->id_limit(), pipeline_->added.id_limit());
}

std::string PretrainedTokenizer::token(TokenId id) const {
  if (const AddedToken* added = pipeline_->added.find(id)) return added->content;
  const std::string* token = pipeline_->tokens->token(id);
  return token ? *token : std::string();
}

std::optional<TokenId> PretrainedTokenizer::unknown_id() const {
  const TokenId id = pipeline_->model->unknown_id();
  if (id == PretrainedModel::kNoToken) return std::nullopt;
  return id;
}

std::vector<TokenId> PretrainedTokenizer::byte_fallback_ids() const {
  std::vector<TokenId> ids;
  for (unsigned b = 0; b < 256; ++b) {
    const auto id = pipeline_->tokens->find(byte_fallback_piece(b));
    if (!id) return {};
    ids.push_back(*id);
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

bool PretrainedTokenizer::token_bytes(const std::string& token, std::string& bytes) const {
  // The bytes the token stands for: tiktoken's tokens are bytes; a ByteLevel
  // vocabulary spells bytes in GPT-2's printable alphabet. Any other token is
  // shown as the file spells it, so that SentencePiece's U+2581 stays visible
  // (decoding would turn it into a space), and a byte-fallback piece stays
  // <0xNN>, as SentencePiece, HF and tokenlab's own models show it: shown as its
  // byte (\xF0), the same model printed other pieces from its .tkl than from
  // its exported tokenizer.json (issue 26).
  const PretrainedPipeline& p = *pipeline_;
  bytes.clear();
  if (p.format == "tiktoken") {
    bytes = token;
    return true;
  }
  const bool byte_level = std::any_of(p.decoders.begin(), p.decoders.end(),
                                      [](const auto& d) { return d->describe() == "ByteLevel"; });
  if (!byte_level) return false;
  static const auto inverse = [] {
    std::unordered_map<char32_t, char> map;
    const auto& alphabet = byte_level_alphabet();
    for (std::size_t b = 0; b < alphabet.size(); ++b) map[alphabet[b]] = static_cast<char>(b);
    return map;
  }();
  for (const std::string_view c : utf8::split_code_points(token)) {
    const auto it = inverse.find(utf8::decode_at(c, 0));
    if (it == inverse.end()) return false;  // not byte-level after all
    bytes += it->second;
  }
  return true;
}

VocabularyEntry PretrainedTokenizer::vocabulary_entry(TokenId id) const {
  const PretrainedPipeline& p = *pipeline_;
  if (const AddedToken* added = p.added.empty() ? nullptr : p.added.find(id))
    return {added->content, added->special ? EntryKind::special : EntryKind::added, false};
  const std::string* token = p.tokens->token(id);
  if (!token) return {};
  if (unknown_id() == id) return {*token, EntryKind::special, false};
  VocabularyEntry entry{{}, EntryKind::normal, false};
  if (token_bytes(*token, entry.text)) return entry;
  if (const auto byte = byte_fallback_value(*token);
      byte && p.model->type() != "WordLevel" && !byte_fallback_ids().empty()) {
    entry.text.assign(1, static_cast<char>(*byte));
    entry.kind = EntryKind::byte_fallback;
    return entry;
  }
  // A .model file says what each piece is: CONTROL pieces (<s>, </s>) are
  // special, USER_DEFINED ones are matched in the text before the model, as
  // HF's added tokens are.
  if (const auto* spm = dynamic_cast<const sentencepiece_detail::SpmModel*>(p.model.get());
      spm != nullptr && id < spm->vocabulary().types.size()) {
    using sentencepiece_detail::PieceType;
    const PieceType type = spm->vocabulary().types[id];
    if (type == PieceType::control) return {*token, EntryKind::special, false};
    if (type == PieceType::user_defined) return {*token, EntryKind::added, false};
  }
  std::string_view text = *token;
  if (p.model->type() == "WordPiece" && text.starts_with("##")) {
    text.remove_prefix(2);
    entry.continuation = true;
  }
  const std::string_view marker = kBoundaryMarker;
  for (std::size_t at = 0;;) {
    const std::size_t next = text.find(marker, at);
    entry.text.append(text.substr(at, next == std::string_view::npos ? next : next - at));
    if (next == std::string_view::npos) break;
    entry.text += ' ';
    at = next + marker.size();
  }
  return entry;
}

std::string PretrainedTokenizer::display_piece(TokenId id) const {
  return display_piece_as(id, PartialBytes::backslash);
}

std::string PretrainedTokenizer::display_piece_as(TokenId id, PartialBytes partial) const {
  const PretrainedPipeline& p = *pipeline_;
  if (const AddedToken* added = p.added.empty() ? nullptr : p.added.find(id)) return added->content;
  const std::string* token = p.tokens->token(id);
  if (!token) return {};
  std::string bytes;
  if (!token_bytes(*token, bytes)) bytes = *token;
  std::string shown;
  for (std::size_t i = 0; i < bytes.size();) {
    const std::size_t length = utf8::sequence_length(bytes, i);
    if (length == 0) {
      static constexpr char kHex[] = "0123456789ABCDEF";
      const auto byte = static_cast<unsigned char>(bytes[i]);
      shown += partial == PartialBytes::angle ? "<0x" : "\\x";
      shown += kHex[byte >> 4];
      shown += kHex[byte & 15];
      if (partial == PartialBytes::angle) shown += '>';
      ++i;
      continue;
    }
    shown.append(bytes, i, length);
    i += length;
  }
  return shown;
}

}  // namespace tokenlab
