#include "hf/compiled_json.hpp"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>

#include "byte_level/token_rows.hpp"

namespace tokenlab::hf_detail {

namespace {

// What the entry's first section says it holds, in this layout: a
// tokenizer.json's byte-level BPE, or another BPE (whole-line) by its model's tables.
constexpr std::uint64_t kByteLevel = 0x6a736f6e62706535ull;  // "jsonbpe5"
constexpr std::uint64_t kBpeModel = 0x6a736f6e62706d34ull;   // "jsonbpm4"
constexpr std::uint64_t kWordPiece = 0x6a736f6e77706332ull;  // "jsonwpc2"

// What the entry leaves out, because the byte-level encoder it keeps makes
// it again: the vocabulary (byte_level/token_rows.hpp), the merges
// (implied_merges: one a token, or every split).
constexpr std::uint64_t kVocabularyImplied = 1, kMergesOnePerToken = 2, kMergesEverySplit = 4;

// A vocabulary as the entry holds it, viewed in its mapping until a deferred
// table's fill: ids, the tokens' lengths and their bytes end to end.
struct Vocabulary {
  std::shared_ptr<const void> mapping;
  std::span<const TokenId> ids;
  std::span<const std::uint32_t> lengths;
  std::string_view bytes;
};

// A vocabulary's rows in the same shape, owned: what the entry would hold.
struct VocabularyRows {
  std::vector<TokenId> ids;
  std::vector<std::uint32_t> lengths;
  std::string bytes;
  void add(TokenId id, std::string_view token) {
    ids.push_back(id);
    lengths.push_back(static_cast<std::uint32_t>(token.size()));
    bytes += token;
  }
};

VocabularyRows listed_rows(const TokenTable& tokens) {
  VocabularyRows rows;
  rows.ids.reserve(tokens.size());
  rows.lengths.reserve(tokens.size());
  for (TokenId id = 0; id < tokens.id_limit(); ++id)
    if (const std::string* token = tokens.token(id)) rows.add(id, *token);
  return rows;
}

// Whether the encoder's tokens, spelled as the file spells them, are listed.
bool same_vocabulary(const byte_level_detail::TokenRows& spelled, const VocabularyRows& listed) {
  if (spelled.rows.size() != listed.ids.size()) return false;
  std::size_t at = 0;
  for (std::size_t i = 0; i < listed.ids.size(); ++i) {
    const std::string_view token = std::string_view(listed.bytes).substr(at, listed.lengths[i]);
    if (spelled.rows[i].id != listed.ids[i] || spelled.rows[i].token != token) return false;
    at += listed.lengths[i];
  }
  return true;
}

// Fills table with the rows (ids, lengths, bytes: Vocabulary's shape).
void fill_rows(TokenTable& table, std::span<const TokenId> ids,
               std::span<const std::uint32_t> lengths, std::string_view bytes) {
  std::vector<TokenTable::Row> rows;
  rows.reserve(ids.size());
  std::size_t at = 0;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    rows.push_back({ids[i], bytes.substr(at, lengths[i])});
    at += lengths[i];
  }
  table.reserve(table.id_limit());
  (void)table.insert_new(rows);  // the rows of a table that took them all
}

template <class T>
std::span<const T> view_of(compiled::Reader& in, std::uint64_t count) {
  in.expect(count, sizeof(T));
  const std::string_view bytes = in.view(count * sizeof(T));
  return {reinterpret_cast<const T*>(bytes.data()), count};  // 8-byte aligned
}

// An added token in the entry: its flags and lengths, its two strings in one
// section after all the records.
struct AddedRecord {
  TokenId id = 0;
  std::uint32_t flags = 0;
  std::uint32_t content_length = 0;
  std::uint32_t normalized_length = 0;
};
static_assert(std::has_unique_object_representations_v<AddedRecord>);
constexpr std::uint32_t kSpecial = 1, kSingleWord = 2, kLstrip = 4, kRstrip = 8, kNormalized = 16;

AddedRecord record_of(const AddedToken& token) {
  AddedRecord r;
  r.id = token.id;
  r.flags = (token.special ? kSpecial : 0u) | (token.single_word ? kSingleWord : 0) |
            (token.lstrip ? kLstrip : 0) | (token.rstrip ? kRstrip : 0) |
            (token.normalized ? kNormalized : 0);
  r.content_length = static_cast<std::uint32_t>(token.content.size());
  r.normalized_length = static_cast<std::uint32_t>(token.normalized_content.size());
  return r;
}

std::vector<AddedToken> added_tokens_of(std::span<const AddedRecord> records,
                                        std::string_view bytes) {
  std::vector<AddedToken> tokens;
  tokens.reserve(records.size());
  std::size_t at = 0;
  for (const AddedRecord& r : records) {
    const std::uint64_t length = std::uint64_t{r.content_length} + r.normalized_length;
    if (r.flags > 31 || r.id > TokenTable::kMaxId || r.content_length == 0 ||
        length > bytes.size() - at)
      throw compiled::Stale("added tokens");
    AddedToken& token = tokens.emplace_back();
    token.id = r.id;
    token.special = (r.flags & kSpecial) != 0;
    token.single_word = (r.flags & kSingleWord) != 0;
    token.lstrip = (r.flags & kLstrip) != 0;
    token.rstrip = (r.flags & kRstrip) != 0;
    token.normalized = (r.flags & kNormalized) != 0;
    token.content = bytes.substr(at, r.content_length);
    token.normalized_content = bytes.substr(at + r.content_length, r.normalized_length);
    at += length;
  }
  if (at != bytes.size()) throw compiled::Stale("added tokens");
  return tokens;
}

}  // namespace

std::optional<CompiledJson> read_compiled_json(const ModelCache& cache,
                                               const compiled::Digest& digest) {
  auto in = compiled::Reader::open(compiled::entry_path(cache, digest), digest);
  if (!in) return std::nullopt;
  try {
    const auto kind = in->value<std::uint64_t>();
    if (kind != kByteLevel && kind != kBpeModel && kind != kWordPiece) return std::nullopt;
    CompiledJson c;
    const auto size = in->value<std::uint64_t>();
    const auto id_limit = in->value<std::uint64_t>();
    if (size > id_limit || id_limit > std::uint64_t{TokenTable::kMaxId} + 1)
      throw compiled::Stale("vocabulary");
    const auto left_out = in->value<std::uint64_t>();
    const bool vocabulary_implied = (left_out & kVocabularyImplied) != 0;
    const bool merges_implied = (left_out & (kMergesOnePerToken | kMergesEverySplit)) != 0;
    if (left_out > 5 || (left_out & 6) == 6 || ((left_out != 0) && kind != kByteLevel))
      throw compiled::Stale("left out");
    auto vocabulary = std::make_shared<Vocabulary>();
    if (!vocabulary_implied) {
      vocabulary->mapping = in->mapping();
      vocabulary->ids = view_of<TokenId>(*in, size);
      vocabulary->lengths = view_of<std::uint32_t>(*in, size);
      const auto byte_count = in->value<std::uint64_t>();
      in->expect(byte_count);
      vocabulary->bytes = in->view(byte_count);
    }
    std::uint64_t merges = 0;
    if (!merges_implied) {
      merges = in->value<std::uint64_t>();
      c.merges = {in->mapping(), view_of<MergeIds>(*in, merges)};
    }
    if (kind == kByteLevel)
      c.encoder = ByteLevelEncoder::load(*in);
    else if (kind == kBpeModel)
      c.model = load_bpe_tables(*in);
    else if (merges == 0)
      c.wordpiece = load_wordpiece_tables(*in, id_limit);
    else
      throw compiled::Stale("WordPiece merges");
    const auto added = in->value<std::uint64_t>();
    in->expect(added, sizeof(AddedRecord));
    std::vector<AddedRecord> records(added);
    in->read(records.data(), added * sizeof(AddedRecord));
    const std::string added_bytes = in->string();
    c.spans = in->value<ListDivertingHandler::ListSpans>();
    in->finish();  // from here on, what was read is the entry as written
    if (merges_implied) {
      const bool every_split = (left_out & kMergesEverySplit) != 0;
      c.merges = SharedMerges::deferred(
          [encoder = c.encoder, every_split] { return encoder->implied_merges(every_split); });
    }
    c.added = added_tokens_of(records, added_bytes);
    // The rows are made when the table is filled, not on every load: 200,000
    // of them are 4.8 MB that encoding ids never reads.
    if (vocabulary_implied) {
      c.tokens =
          TokenTable::deferred(size, id_limit, [encoder = c.encoder, id_limit](TokenTable& table) {
            const auto spelled = byte_level_detail::token_rows(
                *encoder, id_limit, byte_level_detail::Spelling::gpt2_alphabet);
            table.reserve(table.id_limit());
            (void)table.insert_new(spelled.rows);
          });
      return c;
    }
    std::uint64_t total = 0;
    for (const std::uint32_t length : vocabulary->lengths) total += length;
    if (total != vocabulary->bytes.size()) throw compiled::Stale("vocabulary bytes");
    c.tokens = TokenTable::deferred(size, id_limit, [vocabulary](TokenTable& table) {
      fill_rows(table, vocabulary->ids, vocabulary->lengths, vocabulary->bytes);
    });
    return c;
  } catch (const compiled::Stale&) {
    return std::nullopt;
  }
}

bool write_compiled_json(const ModelCache& cache, const compiled::Digest& digest,
                         const TokenTable& tokens, std::span<const MergeIds> merges,
                         const ByteLevelEncoder* encoder, const PretrainedModel& model,
                         std::span<const AddedToken> added,
                         const ListDivertingHandler::ListSpans& spans, unsigned threads) {
  compiled::Writer out;
  const bool wordpiece = encoder == nullptr && model.type() == "WordPiece";
  if (wordpiece && !merges.empty()) return false;
  out.value(encoder != nullptr ? kByteLevel : wordpiece ? kWordPiece : kBpeModel);
  const VocabularyRows listed = listed_rows(tokens);
  // The merges the encoder's byte table implies: every split of every token
  // for a file on HF's merge table, each token's one split for one merge a
  // token. A file that lists every split (Llama 3's) is read back with the
  // byte table alone, as one merge a token already is; either list equal to
  // the file's is left out of the entry.
  bool as_ranks = false;
  std::uint64_t left_out = 0;
  if (encoder != nullptr) {
    const ByteLevelEncoder::Rule rule = encoder->rule();
    std::vector<MergeIds> implied;
    if (rule != ByteLevelEncoder::Rule::ranks)
      implied = encoder->implied_merges(rule == ByteLevelEncoder::Rule::merges);
    as_ranks = encoder->every_split_listed(merges, implied);
    if (same_vocabulary(byte_level_detail::token_rows(*encoder, tokens.id_limit(),
                                                      byte_level_detail::Spelling::gpt2_alphabet),
                        listed))
      left_out |= kVocabularyImplied;
    if ((as_ranks || rule == ByteLevelEncoder::Rule::token_splits) &&
        std::ranges::equal(implied, merges))
      left_out |= as_ranks ? kMergesEverySplit : kMergesOnePerToken;
  }
  out.value(static_cast<std::uint64_t>(listed.ids.size()));
  out.value(static_cast<std::uint64_t>(tokens.id_limit()));
  out.value(left_out);
  if ((left_out & kVocabularyImplied) == 0) {
    out.bytes(listed.ids.data(), listed.ids.size() * sizeof(TokenId));
    out.bytes(listed.lengths.data(), listed.lengths.size() * sizeof(std::uint32_t));
    out.string(listed.bytes);
  }
  if ((left_out & (kMergesOnePerToken | kMergesEverySplit)) == 0) {
    out.value(static_cast<std::uint64_t>(merges.size()));
    out.bytes(merges.data(), merges.size() * sizeof(MergeIds));
  }
  // Found here, once, for every later load: a piece that is a token merging
  // into itself is then looked up whole, as tiktoken does, instead of merged
  // from its bytes.
  std::vector<TokenId> merging_apart;
  if (encoder != nullptr) {
    if (!encoder->whole_piece_first()) merging_apart = encoder->tokens_merging_apart(threads);
    encoder->save(out, encoder->whole_piece_first() ? nullptr : &merging_apart, as_ranks);
  } else if (wordpiece ? !save_wordpiece_tables(model, out)
                       : !save_bpe_tables(model, out, threads)) {
    return false;
  }
  std::vector<AddedRecord> records;
  std::string added_bytes;
  records.reserve(added.size());
  for (const AddedToken& token : added) {
    records.push_back(record_of(token));
    added_bytes += token.content;
    added_bytes += token.normalized_content;
  }
  out.value(static_cast<std::uint64_t>(records.size()));
  out.bytes(records.data(), records.size() * sizeof(AddedRecord));
  out.string(added_bytes);
  out.value(spans);
  return out.commit(compiled::entry_path(cache, digest), digest, cache.max_entries);
}

}  // namespace tokenlab::hf_detail
