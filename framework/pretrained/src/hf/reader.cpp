// Hugging Face tokenizers' tokenizer.json, read into a PretrainedPipeline; and a
// tokenizer.json that tokenlab's export wrote, read back into what it describes.
//
// Every component and option is checked: an unknown component type, or an
// option that would change the ids and that tokenlab does not implement, is an
// Error naming its JSON path. Only options that cannot change ids or text are
// accepted and ignored (trim_offsets, truncation, padding, post_processor: the
// pipeline encodes text without adding special tokens, as encode(text, false)).
// The components are read in reader_components.cpp.
#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <rapidjson/error/en.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "byte_level/byte_level_encoder.hpp"
#include "compiled/compiled_file.hpp"
#include "hf/compiled_json.hpp"
#include "hf/internal.hpp"
#include "hf/list_prefetch.hpp"
#include "hf/serde_numbers.hpp"
#include "json_numbers.hpp"
#include "json_value.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/json_nesting.hpp"
#include "tokenlab/pretrained/components.hpp"
#include "tokenlab/pretrained/exported_tokenizer_json.hpp"
#include "tokenlab/pretrained/formats.hpp"
#include "tokenlab/pretrained/tokenizer_json_writer.hpp"
#include "tokenlab/utf8.hpp"

namespace tokenlab {
namespace {

using json::Value;

using hf_detail::add_decoders;
using hf_detail::add_normalizers;
using hf_detail::add_pre_tokenizers;
using hf_detail::BpeParts;
using hf_detail::byte_level_pattern;
using hf_detail::read_model;
using hf_detail::unigram_score_digits;

// Whether the file names the Unigram model anywhere. Not string::find: it
// stops at every quote (memchr, then a compare), two million of them in
// GPT-4o's tokenizer.json; Horspool skips ahead by up to the needle's length.
bool names_unigram(std::string_view content) {
  constexpr std::string_view kNeedle = "\"Unigram\"";
  return std::search(content.begin(), content.end(),
                     std::boyer_moore_horspool_searcher(kNeedle.begin(), kNeedle.end())) !=
         content.end();
}

// Whether the file's model is BPE, the one kind with compiled entries, told
// without parsing: HF writes "model" after the other members and its "type"
// first ("model": {"type": "BPE", ...), so the first "model" key that opens an
// object says it (a token or added token "model" is no key: a comma or a colon
// and a number follow it). Gemma 3's is 1.2 MB in, after its added tokens. A
// wrong guess costs a digest for nothing or a load without the cache, never a
// different result.
bool may_have_entry(std::string_view content) {
  constexpr std::string_view kKey = "\"model\"";
  const std::boyer_moore_horspool_searcher searcher(kKey.begin(), kKey.end());
  for (auto from = content.begin();;) {
    const auto found = std::search(from, content.end(), searcher);
    if (found == content.end()) return false;
    std::size_t i = static_cast<std::size_t>(found - content.begin()) + kKey.size();
    const auto take = [&](std::string_view token) {
      while (i < content.size() &&
             (content[i] == ' ' || content[i] == '\n' || content[i] == '\r' || content[i] == '\t'))
        ++i;
      if (content.substr(i, token.size()) != token) return false;
      i += token.size();
      return true;
    };
    if (take(":") && take("{")) {
      if (!take("\"type\"") || !take(":")) return false;
      return take("\"BPE\"") || take("\"WordPiece\"");
    }
    from = found + 1;
  }
}

// Where text's newlines are, a bit a byte: in situ parsing rewrites strings
// with escapes, so an error's line is counted here, in the bits noted before.
// A bitmap rather than a list of offsets: Gemma 3's file has 2.4 million
// lines, and GPT-4o's list grew to 4 MB, its pages a tenth of loading it.
class NewlineBits {
 public:
  explicit NewlineBits(std::string_view text) : words_((text.size() + 63) / 64, 0) {
    std::size_t i = 0;
#if defined(__SSE2__)
    // Sixteen bytes a step: a movemask of the newlines, four to a word.
    const __m128i newline = _mm_set1_epi8('\n');
    for (; i + 16 <= text.size(); i += 16) {
      const __m128i block = _mm_loadu_si128(reinterpret_cast<const __m128i*>(text.data() + i));
      const auto mask = static_cast<std::uint64_t>(
          static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(block, newline))));
      words_[i / 64] |= mask << (i % 64);
    }
#endif
    for (; i < text.size(); ++i)
      if (text[i] == '\n') words_[i / 64] |= std::uint64_t{1} << (i % 64);
  }
  /// The 1-based line of the byte at offset.
  [[nodiscard]] std::size_t line_of(std::size_t offset) const noexcept {
    std::size_t line = 1;
    const std::size_t word = std::min(offset / 64, words_.size());
    for (std::size_t w = 0; w < word; ++w)
      line += static_cast<std::size_t>(std::popcount(words_[w]));
    if (word < words_.size())
      line += static_cast<std::size_t>(
          std::popcount(words_[word] & ((std::uint64_t{1} << (offset % 64)) - 1)));
    return line;
  }

 private:
  std::vector<std::uint64_t> words_;
};

}  // namespace

PretrainedPipeline read_tokenizer_json(std::string content, const std::string& source,
                                       unsigned threads, const ModelCache& cache) {
  return hf_detail::read_tokenizer_json_in_place(content.data(), content.size(), source, threads,
                                                 cache);
}

namespace {
constexpr std::string_view kStampSalt = "tokenizer.json";
}  // namespace

PretrainedPipeline hf_detail::read_tokenizer_json_file(pretrained_detail::FileBuffer& file,
                                                       std::size_t read_so_far,
                                                       const std::string& source, unsigned threads,
                                                       const ModelCache& cache) {
  std::optional<KnownFile> known;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> skipped;
  if (cache.applies_to(file.size())) {
    known.emplace();
    known->stamp = compiled::FileStamp::of(file.status());
    known->stat_time_ns = file.stat_time_ns();
    known->digest = compiled::recall_digest(cache, known->stamp, kStampSalt);
    if (known->digest) known->compiled = read_compiled_json(cache, *known->digest);
    if (known->compiled) {
      // The lists the parse jumps over (ListDivertingHandler::skip_lists),
      // in file order; a span it would not jump over is read.
      // (A list that starts in the bytes read already is skipped from there.)
      const auto& spans = known->compiled->spans;
      for (const auto* span : {&spans.vocab, &spans.merges, &spans.added})
        if (span->entries > 0 && span->begin <= span->end && span->end <= file.size() &&
            span->end > read_so_far)
          skipped.emplace_back(std::max<std::uint64_t>(span->begin, read_so_far), span->end);
      std::sort(skipped.begin(), skipped.end());
      for (std::size_t i = 1; i < skipped.size(); ++i)
        if (skipped[i - 1].second > skipped[i].first) skipped.clear();
    } else {
      known->digest.reset();
    }
  }
  file.read_except(read_so_far, skipped, threads);
  file.close();
  if (skipped.empty())
    return read_tokenizer_json_in_place(file.data(), file.size(), source, threads, cache,
                                        known ? &*known : nullptr);
  try {
    return read_tokenizer_json_in_place(file.data(), file.size(), source, threads, cache, &*known);
  } catch (const Error&) {
    // Never expected (the stamp says the bytes are those the entry was made
    // from, which parsed): the file read whole and digested, which gives the
    // file's own error if it has one.
  }
  pretrained_detail::FileBuffer again = pretrained_detail::FileBuffer::read(source, threads);
  // The stamp of the file read now: the path may name another file by now.
  KnownFile stamp_only{compiled::FileStamp::of(again.status()), again.stat_time_ns(), std::nullopt,
                       std::nullopt};
  return read_tokenizer_json_in_place(again.data(), again.size(), source, threads, cache,
                                      &stamp_only);
}

PretrainedPipeline hf_detail::read_tokenizer_json_in_place(char* text, std::size_t size,
                                                           const std::string& source,
                                                           unsigned threads,
                                                           const ModelCache& cache,
                                                           KnownFile* known) {
  const std::string_view content(text, size);
  // The compiled-model cache, looked up by the bytes before the in-situ parse
  // rewrites them (hf/compiled_json.hpp). Only a BPE or WordPiece model can have
  // an entry: a unigram or WordLevel file is not digested for nothing. A file whose
  // stamp recalled its entry comes with both.
  std::optional<compiled::Digest> digest;
  std::optional<CompiledJson> compiled;
  const bool recalled = known != nullptr && known->compiled.has_value();
  if (recalled) {
    digest = known->digest;
    compiled = std::move(known->compiled);
    known->compiled.reset();
  } else if (cache.applies_to(size) && may_have_entry(content)) {
    digest = compiled::digest_of(content);
    compiled = read_compiled_json(cache, *digest);
  }
  // In situ parsing decodes strings in place, so after an error the bytes before the
  // error offset no longer show where lines ended ("\\n" escapes become newlines).
  // Line ends are noted first, freed once the file is read.
  // A file with a compiled entry parsed without error when the entry was
  // written, by this build: its newlines are not noted (a tenth of a hit).
  std::optional<NewlineBits> newlines;
  if (!compiled) newlines.emplace(content);
  // In situ: strings stay in content, so a 33 MB file costs little more than
  // itself; model.vocab and model.merges go to lists rather than the document.
  rapidjson::Document document;
  hf_detail::StreamedLists lists;
  // Room for as many rows as a file of this size is likely to hold, reserved
  // (not touched): grown by doubling, the two lists were written twice over.
  lists.vocab.reserve(content.size() / 16);
  lists.merges.reserve(content.size() / 16);
  // With a second thread, the vocabulary and the merges are taken up while the
  // rest of the file is parsed (list_prefetch.hpp); declared after lists, so
  // that it is joined before they go.
  std::optional<hf_detail::ListPrefetch> prefetch;
  if (threads >= 2 && !compiled) prefetch.emplace();
  std::size_t fast_vocab = 0;
  std::size_t fast_merges = 0;
  bool added_jumped = false;
  hf_detail::ListDivertingHandler::ListSpans spans;
  rapidjson::Reader reader;
  std::optional<std::size_t> too_deep_at;
  const auto parse = [&](rapidjson::Document& out) {
    rapidjson::InsituStringStream stream(text);
    hf_detail::ListDivertingHandler handler(out, lists);
    // RapidJSON and the readers below recurse once a level: the handler stops
    // the parse past kMaxJsonNesting, as check_json_nesting would have.
    handler.limit_nesting(kMaxJsonNesting, stream, too_deep_at);
    if (prefetch) handler.prefetch_into(*prefetch);
    if (compiled) handler.skip_lists(compiled->spans, size);
    // Numbers as text, typed by json::number_event (json_numbers.hpp says why).
    const bool ok =
        !reader
             .Parse<rapidjson::kParseInsituFlag | rapidjson::kParseNumbersAsStringsFlag>(stream,
                                                                                         handler)
             .IsError();
    fast_vocab = handler.fast_vocab_entries();
    fast_merges = handler.fast_merge_entries();
    added_jumped = handler.added_jumped();
    spans = handler.spans();
    return ok;
  };
  document.Populate(parse);
  hf_detail::ListPrefetch::Result prefetched;
  if (prefetch) prefetched = prefetch->finish();
  if (too_deep_at) throw json_nesting_error(source, kMaxJsonNesting, *too_deep_at);
  if (reader.HasParseError()) {
    const std::size_t offset = reader.GetErrorOffset();
    if (!newlines) newlines.emplace(content);  // (not reached: see above)
    const std::size_t line = newlines->line_of(offset);
    throw Error(source + ": line " + std::to_string(line) + " (byte " + std::to_string(offset) +
                "): malformed JSON: " + rapidjson::GetParseError_En(reader.GetParseErrorCode()));
  }
  newlines.reset();
  const Value root(document, "", source);
  if (!root.is_object()) root.fail("expected a JSON object (tokenizer.json), found " + root.kind());
  // model.vocab's object (200,000 names) is checked as it is read (read_vocab_object).
  const rapidjson::Value* vocab = nullptr;
  if (const auto model = root.find("model"); model && model->is_object())
    if (const auto v = model->find("vocab"); v && v->is_object()) vocab = &v->raw();
  root.refuse_duplicate_members(vocab);
  root.only_members({"version", "truncation", "padding", "added_tokens", "normalizer",
                     "pre_tokenizer", "post_processor", "decoder", "model"});
  // An entry is written for a file whose two lists the fast paths took whole
  // (so that a hit's skip_lists jumps over all of each) and whose model the
  // fused encoder runs.
  const bool lists_taken_whole = lists.has_vocab && lists.has_merges &&
                                 fast_vocab == lists.vocab.size() &&
                                 fast_merges == lists.merges.size() && fast_vocab > 0;
  PretrainedPipeline p;
  p.format = "tokenizer.json";
  if (compiled) p.compiled_entry = compiled::entry_path(cache, *digest).string();
  p.compiled_by_stamp = recalled;
  BpeParts bpe;
  read_model(root.member("model"), p, source, lists, &bpe, &prefetched,
             compiled ? &*compiled : nullptr);
  if (const auto n = root.find("normalizer")) add_normalizers(*n, p.normalizers);
  if (const auto t = root.find("pre_tokenizer")) {
    add_pre_tokenizers(*t, p.pre_tokenizers);
    if (compiled && compiled->encoder && bpe.read &&
        compiled->encoder->pattern() == byte_level_pattern(*t))
      p.byte_level = compiled->encoder;
    else if (bpe.read)
      p.byte_level =
          make_hf_byte_level(byte_level_pattern(*t), *p.tokens, bpe.merges.ids(), bpe.options);
  }
  // Whether this load writes an entry: then it needs the merges (shared with
  // the model) and the added tokens' ids as well as the pipeline. A byte-level
  // file's entry keeps its fused encoder, another's the model's tables.
  // A WordPiece file's entry keeps its model's tries, when its vocabulary was
  // taken whole (and it has no merges).
  const bool wordpiece_entry =
      digest && !compiled && !bpe.read && p.model && p.model->type() == "WordPiece" &&
      lists.has_vocab && !lists.has_merges && fast_vocab == lists.vocab.size() && fast_vocab > 0;
  const bool writes_entry = (digest && !compiled && bpe.read && lists_taken_whole &&
                             (!p.byte_level || !bpe.options.unknown_token)) ||
                            wordpiece_entry;
  const SharedMerges entry_merges = bpe.merges;
  if (bpe.read) {
    if (compiled && compiled->model)
      p.model = hf_detail::make_bpe_model(p.tokens, std::move(bpe.merges), bpe.options, bpe.where,
                                          std::move(compiled->model));
    else
      p.model = hf_detail::make_bpe_model(p.tokens, std::move(bpe.merges), bpe.options, bpe.where);
    // Built now, on two threads, rather than by the first encode on one; a
    // fused byte-level encoder stands in for the model, which then needs none.
    if (threads >= 2 && !p.byte_level) p.model->prepare(threads);
  }
  if (const auto d = root.find("decoder")) add_decoders(*d, p.decoders);
  p.added_from_entry = added_jumped;
  if (added_jumped) {
    // The parse jumped over the list: the entry holds the tokens it gave.
    p.added.add_all(std::move(compiled->added));
  } else if (const auto added = root.find("added_tokens")) {
    std::unordered_map<std::string, TokenId> added_ids;
    std::optional<TokenId> largest_added;
    for (std::size_t i = 0; i < added->size(); ++i) {
      const Value a = added->at(i);
      a.only_members({"id", "content", "single_word", "lstrip", "rstrip", "normalized", "special"});
      AddedToken token;
      const auto id = a.member("id").unsigned_integer();
      if (id > TokenTable::kMaxId)
        a.member("id").fail("id " + std::to_string(id) + " is too large");
      token.id = static_cast<TokenId>(id);
      token.content = a.member("content").string();
      token.special = a.boolean_or("special", false);
      token.single_word = a.boolean_or("single_word", false);
      token.lstrip = a.boolean_or("lstrip", false);
      token.rstrip = a.boolean_or("rstrip", false);
      token.normalized = a.boolean_or("normalized", !token.special);
      if (token.normalized) {
        token.normalized_content = token.content;
        for (const auto& step : p.normalizers) step->apply(token.normalized_content);
      }
      if (token.content.empty()) continue;  // HF skips it, and gives it no id
      // As HF's AddedVocabulary::add_tokens, which ignores the file's id: a content
      // the model has takes the model's id, one added before takes that one's id,
      // and any other the next id after the model's vocabulary and the added
      // tokens so far (HF only warns when that differs from the file's id).
      // A compiled entry holds the ids these rules gave: they look the model's
      // tokens up, which would fill its deferred table. This token's place
      // among them is how many were added before it.
      if (compiled) {
        const std::size_t resolved = p.added.tokens().size();
        if (resolved >= compiled->added.size())
          a.fail("internal: the compiled entry of this file has fewer added tokens");
        token.id = compiled->added[resolved].id;
      } else if (const auto model_id = p.tokens->find(token.content)) {
        token.id = *model_id;
      } else if (const auto earlier = added_ids.find(token.content); earlier != added_ids.end()) {
        token.id = earlier->second;
      } else {
        const std::size_t model_size = p.tokens->size();
        std::uint64_t next = model_size;
        if (largest_added && (*largest_added >= model_size || model_size == 0))
          next = std::uint64_t{*largest_added} + 1;
        if (next > TokenTable::kMaxId)
          a.member("id").fail("id " + std::to_string(next) + " is too large");
        token.id = static_cast<TokenId>(next);
        if (const std::string* other = p.tokens->token(token.id))
          a.member("id").fail("HF tokenizers gives \"" + token.content + "\" the id " +
                              std::to_string(token.id) + ", which is the model's token \"" +
                              *other + "\" (the vocabulary has gaps)");
      }
      largest_added = std::max(largest_added.value_or(0), token.id);
      added_ids.emplace(token.content, token.id);
      p.added.add(std::move(token));
    }
  }
  // Best effort: a cache that cannot be written is no error of this file's.
  bool has_entry = compiled.has_value();
  if (writes_entry)
    has_entry = write_compiled_json(cache, *digest, *p.tokens, entry_merges.ids(),
                                    p.byte_level.get(), *p.model, p.added.tokens(), spans, threads);
  // The file's stamp, so that its next load needs no digest: only once it
  // has an entry (a stamp without one would save nothing).
  if (known != nullptr && !recalled && has_entry)
    compiled::remember_digest(cache, known->stamp, known->stat_time_ns, kStampSalt, *digest);
  return p;
}

namespace {

[[noreturn]] void not_an_export(const std::string& source, const std::string& why) {
  throw Error(source + ": not a tokenizer.json as tokenlab export writes it: " + why);
}

// A top-level member, null when absent (the writer writes every one it has).
const rapidjson::Value& top_member(const rapidjson::Value& document, const char* name) {
  static const rapidjson::Value null;
  const auto it = document.FindMember(name);
  return it == document.MemberEnd() ? null : it->value;
}

rapidjson::Document parse_written(const std::string& json) {
  rapidjson::Document document;
  (void)json::parse_json(document, json);  // null when malformed
  return document;
}

// A {token: id} vocabulary as pieces by id, which must be 0..N-1 without gaps:
// a tokenlab vocabulary is dense.
std::vector<std::string> pieces_by_id(const Value& vocab, const std::string& source) {
  if (!vocab.is_object()) vocab.fail("expected an object of token: id, found " + vocab.kind());
  const std::size_t count = vocab.raw().MemberCount();
  std::vector<std::string> pieces(count);
  std::vector<bool> seen(count, false);
  for (auto it = vocab.raw().MemberBegin(); it != vocab.raw().MemberEnd(); ++it) {
    std::string token(it->name.GetString(), it->name.GetStringLength());
    const Value id(it->value, vocab.child_path("\"" + token + "\""), source);
    const auto n = id.unsigned_integer();
    if (n >= count || seen[n])
      not_an_export(source, vocab.path() + ": the ids are not 0 to " + std::to_string(count - 1) +
                                " each once");
    seen[n] = true;
    pieces[n] = std::move(token);
  }
  return pieces;
}

// The model member read into a description (pieces as the file spells them).
ModelDescription description_of(const Value& model, const std::string& source,
                                const std::vector<std::string>& score_digits) {
  ModelDescription m;
  const std::string type(model.member("type").string());
  const auto unknown_token = [&](const std::optional<std::string>& token) {
    if (!token) return;
    const auto it = std::find(m.pieces.begin(), m.pieces.end(), *token);
    if (it == m.pieces.end()) model.member("unk_token").fail("not in the vocabulary");
    m.unknown = static_cast<TokenId>(it - m.pieces.begin());
  };
  if (type == "BPE") {
    m.kind = ModelKind::bpe;
    m.pieces = pieces_by_id(model.member("vocab"), source);
    unknown_token(model.optional_string("unk_token"));
    m.byte_fallback = model.boolean_or("byte_fallback", false);
    std::unordered_map<std::string_view, TokenId> ids;
    for (TokenId id = 0; id < m.pieces.size(); ++id) ids.emplace(m.pieces[id], id);
    const Value merges = model.member("merges");
    m.merges.reserve(merges.size());
    for (std::size_t i = 0; i < merges.size(); ++i) {
      const Value pair = merges.at(i);
      if (!pair.is_array() || pair.size() != 2) pair.fail("expected [left, right]");
      const auto left = ids.find(pair.at(0).string());
      const auto right = ids.find(pair.at(1).string());
      if (left == ids.end() || right == ids.end()) pair.fail("a token not in the vocabulary");
      m.merges.emplace_back(left->second, right->second);
    }
  } else if (type == "WordPiece") {
    m.kind = ModelKind::wordpiece;
    m.pieces = pieces_by_id(model.member("vocab"), source);
    unknown_token(model.optional_string("unk_token"));
    m.continuation_prefix = model.member("continuing_subword_prefix").string();
    m.max_input_chars_per_word = model.member("max_input_chars_per_word").unsigned_integer();
  } else if (type == "WordLevel") {
    m.kind = ModelKind::word;
    m.pieces = pieces_by_id(model.member("vocab"), source);
    unknown_token(model.optional_string("unk_token"));
  } else if (type == "Unigram") {
    m.kind = ModelKind::unigram;
    const Value vocab = model.member("vocab");
    for (std::size_t i = 0; i < vocab.size(); ++i) {
      const Value entry = vocab.at(i);
      if (entry.size() != 2) entry.fail("expected [token, score]");
      m.pieces.emplace_back(entry.at(0).string());
      // The digits as written, read as HF and the reader above read them, so that
      // writing the score again gives them back.
      m.scores.push_back(vocab.size() == score_digits.size()
                             ? detail::serde_json_parse(score_digits[i])
                             : detail::as_serde_json_reads(entry.at(1).number()));
    }
    if (const auto u = model.find("unk_id")) {
      if (u->unsigned_integer() >= m.pieces.size()) u->fail("not in the vocabulary");
      m.unknown = static_cast<TokenId>(u->unsigned_integer());
    }
    m.byte_fallback = model.boolean_or("byte_fallback", false);
  } else {
    not_an_export(source, "tokenlab exports no " + type + " model");
  }
  return m;
}

// Every setting tokenlab has: the export refuses those it cannot write, and of the
// rest exactly one writes a given normalizer and pre-tokenizer.
std::vector<std::pair<NormalizerOptions, PreTokenizerOptions>> every_setting() {
  std::vector<std::pair<NormalizerOptions, PreTokenizerOptions>> settings;
  for (const auto form : {NormalizationForm::none, NormalizationForm::nfc, NormalizationForm::nfkc,
                          NormalizationForm::bert})
    for (const int flags : {0, 1, 2, 3, 4, 5, 6, 7})
      for (const auto kind :
           {PreTokenizerKind::whitespace, PreTokenizerKind::unicode, PreTokenizerKind::icu_words,
            PreTokenizerKind::bert, PreTokenizerKind::gpt2, PreTokenizerKind::cl100k,
            PreTokenizerKind::qwen2, PreTokenizerKind::o200k})
        for (const auto marker :
             {MarkerStyle::prefix, MarkerStyle::suffix, MarkerStyle::none, MarkerStyle::space})
          settings.push_back({NormalizerOptions{.form = form,
                                                .lowercase = (flags & 1) != 0,
                                                .strip_accents = (flags & 2) != 0,
                                                .keep_whitespace = (flags & 4) != 0},
                              PreTokenizerOptions{.kind = kind, .marker = marker}});
  return settings;
}

}  // namespace

ExportedTokenizerJson read_exported_tokenizer_json(std::string_view content,
                                                   const std::string& source) {
  check_json_nesting(content, kMaxJsonNesting, source);
  rapidjson::Document document;
  if (json::parse_json(document, content).IsError() || !document.IsObject())
    throw Error(source + ": not a tokenizer.json (malformed JSON, or not an object)");
  const Value root(document, "", source);
  root.refuse_duplicate_members();
  std::vector<std::string> score_digits;
  if (names_unigram(content)) score_digits = unigram_score_digits(std::string(content));
  ExportedTokenizerJson exported;
  ModelDescription& m = exported.model = description_of(root.member("model"), source, score_digits);
  if (const auto added = root.find("added_tokens"))
    for (std::size_t i = 0; i < added->size(); ++i) {
      const auto id = added->at(i).member("id").unsigned_integer();
      if (id >= m.pieces.size()) added->at(i).fail("not an id of the model");
      m.specials.push_back(static_cast<TokenId>(id));
    }
  // A byte-level BPE is the one model written with the ByteLevel decoder; its
  // pieces are spelled in GPT-2's alphabet, and the model holds their bytes.
  const auto decoder = root.find("decoder");
  m.byte_level = decoder && decoder->is_object() && decoder->optional_string("type") == "ByteLevel";
  if (m.byte_level) {
    std::unordered_map<char32_t, char> byte_of;
    const auto& alphabet = byte_level_alphabet();
    for (std::size_t b = 0; b < alphabet.size(); ++b) byte_of[alphabet[b]] = static_cast<char>(b);
    std::vector<bool> special(m.pieces.size(), false);
    for (const TokenId id : m.specials) special[id] = true;
    for (TokenId id = 0; id < m.pieces.size(); ++id) {
      if (special[id] || utf8::find_invalid(m.pieces[id])) continue;  // the check below says why
      std::string bytes;
      for (const std::string_view c : utf8::split_code_points(m.pieces[id])) {
        const auto it = byte_of.find(utf8::decode_at(c, 0));
        if (it == byte_of.end())
          not_an_export(source, "the byte-level token \"" + m.pieces[id] +
                                    "\" is not spelled in GPT-2's byte alphabet");
        bytes += it->second;
      }
      m.pieces[id] = std::move(bytes);
    }
  }
  // The settings: the one whose export writes the file's normalizer and
  // pre-tokenizer, found by asking the writer itself rather than by a second
  // copy of its rules. A one-token model suffices: they depend on byte_level only.
  ModelDescription probe;
  probe.kind = ModelKind::word;
  probe.pieces = {"u"};
  probe.specials = {0};
  probe.unknown = 0;
  probe.byte_level = m.byte_level;
  const rapidjson::Value& normalizer = top_member(document, "normalizer");
  const rapidjson::Value& pre_tokenizer = top_member(document, "pre_tokenizer");
  bool found = false;
  for (const auto& [n, p] : every_setting()) {
    std::string written;
    try {
      written = write_tokenizer_json(probe, n, p);
    } catch (const Error&) {
      continue;  // not exportable
    }
    const rapidjson::Document d = parse_written(written);
    if (top_member(d, "normalizer") == normalizer &&
        top_member(d, "pre_tokenizer") == pre_tokenizer) {
      exported.normalizer = n;
      exported.pre_tokenizer = p;
      found = true;
      break;
    }
  }
  if (!found)
    not_an_export(source,
                  "no tokenlab normalizer and pre-tokenizer settings export to its normalizer "
                  "and pre_tokenizer");
  // The whole file, written again from what was read: any member that differs
  // (an edited vocabulary, an added post-processor, another decoder) is named.
  std::string again;
  try {
    again = write_tokenizer_json(m, exported.normalizer, exported.pre_tokenizer);
  } catch (const Error& e) {
    not_an_export(source, e.what());
  }
  const rapidjson::Document written = parse_written(again);
  for (const rapidjson::Document* d :
       {&written, static_cast<const rapidjson::Document*>(&document)})
    for (auto it = d->MemberBegin(); it != d->MemberEnd(); ++it) {
      const char* name = it->name.GetString();
      if (top_member(written, name) != top_member(document, name))
        not_an_export(source, std::string("its \"") + name +
                                  "\" is not what export writes for the model the file describes");
    }
  return exported;
}

}  // namespace tokenlab
