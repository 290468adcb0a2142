// Hugging Face tokenizers' WordPiece model (tokenizers/src/models/wordpiece).
#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "hf/wordpiece_tables.hpp"
#include "model_common.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/piece_trie.hpp"
#include "tokenlab/pretrained/components.hpp"
#include "tokenlab/utf8.hpp"

namespace tokenlab {

namespace hf_detail {
struct WordPieceTables {
  TokenId unknown = PretrainedModel::kNoToken;
  PieceTrie initial;
  PieceTrie continuing;
};
}  // namespace hf_detail

namespace {

constexpr TokenId kNone = PretrainedModel::kNoToken;

class WordPieceModel final : public PretrainedModel {
 public:
  WordPieceModel(std::shared_ptr<const TokenTable> tokens, std::string unknown, std::string prefix,
                 std::size_t max_chars, const std::string&)
      : tokens_(std::move(tokens)),
        unknown_token_(std::move(unknown)),
        prefix_(std::move(prefix)),
        max_chars_(max_chars) {
    // HF's WordPiece trainer writes "[UNK]" as unk_token without adding it to the
    // vocabulary unless asked: HF loads such a file and fails only on text that
    // needs the unknown token. So does tokenlab.
    if (const auto id = tokens_->find(unknown_token_)) unknown_ = *id;
    // HF tries every end from the word's end down, a hash lookup of a fresh
    // string each: cubic in the word, and max_input_chars_per_word comes from the
    // file (10^18 made 200,000 characters run for over 11 minutes). The same
    // greedy longest match, walked in a trie, is linear in the word times the
    // longest vocabulary entry. Word-initial pieces are every token; a piece
    // after the first is a token that starts with the prefix, prefix removed.
    std::vector<std::pair<std::string_view, std::uint32_t>> initial;
    std::vector<std::pair<std::string_view, std::uint32_t>> continuing;
    for (TokenId id = 0; id < tokens_->id_limit(); ++id) {
      const std::string* token = tokens_->token(id);
      if (token == nullptr || token->empty()) continue;
      initial.emplace_back(*token, id);
      if (token->size() > prefix_.size() && token->starts_with(prefix_))
        continuing.emplace_back(std::string_view(*token).substr(prefix_.size()), id);
    }
    initial_ = PieceTrie(std::move(initial));
    continuing_ = PieceTrie(std::move(continuing));
  }
  /// From an entry's tables, which hold what the constructor above builds.
  WordPieceModel(std::shared_ptr<const TokenTable> tokens, std::string unknown, std::string prefix,
                 std::size_t max_chars, hf_detail::WordPieceTables&& tables)
      : tokens_(std::move(tokens)),
        unknown_token_(std::move(unknown)),
        prefix_(std::move(prefix)),
        max_chars_(max_chars),
        unknown_(tables.unknown),
        initial_(std::move(tables.initial)),
        continuing_(std::move(tables.continuing)) {}

  void save(compiled::Writer& out) const {
    out.value(unknown_);
    for (const PieceTrie* trie : {&initial_, &continuing_}) {
      out.value(static_cast<std::uint64_t>(trie->node_count()));
      out.value(static_cast<std::uint64_t>(trie->dense_words()));
      out.bytes(trie->node_data(), trie->node_count() * PieceTrie::node_bytes());
      out.bytes(trie->dense_data(), trie->dense_words() * sizeof(std::uint32_t));
    }
  }
  void encode(std::string_view piece, std::vector<TokenId>& out) const override {
    if (piece.empty()) return;
    // Running text repeats its words: a hit skips the trie walk. A word that
    // throws (no unknown token) is never stored.
    pretrained_detail::PieceCache::encode(
        serial_, piece, out,
        [this](std::string_view word, std::vector<TokenId>& o) { encode_plain(word, o); });
  }
  [[nodiscard]] std::string type() const override { return "WordPiece"; }
  [[nodiscard]] Rules rules() const override { return {.kind = Rules::Kind::longest_match}; }
  [[nodiscard]] std::string describe() const override {
    return "prefix \"" + prefix_ + "\", at most " + std::to_string(max_chars_) + " characters" +
           (unknown_ == kNone ? ", unknown \"" + unknown_token_ + "\" not in the vocabulary" : "");
  }
  [[nodiscard]] TokenId unknown_id() const override { return unknown_; }

  /// The greedy longest match, uncached (what the cache stores).
  void encode_plain(std::string_view piece, std::vector<TokenId>& out) const override {
    if (utf8::count_code_points(piece) > max_chars_) {
      out.push_back(unknown(piece));
      return;
    }
    const std::size_t mark = out.size();
    std::size_t start = 0;
    while (start < piece.size()) {
      std::uint32_t found = PieceTrie::kNone;
      const std::size_t length =
          (start == 0 ? initial_ : continuing_).longest_prefix(piece.substr(start), found);
      if (length == 0) {
        out.resize(mark);
        out.push_back(unknown(piece));
        return;
      }
      out.push_back(found);
      start += length;
    }
  }

 private:
  [[nodiscard]] TokenId unknown(std::string_view piece) const {
    if (unknown_ == kNone)
      throw Error("the WordPiece model's unknown token \"" + unknown_token_ +
                  "\" is not in its vocabulary, and \"" + std::string(piece) + "\" needs it");
    return unknown_;
  }

  std::shared_ptr<const TokenTable> tokens_;
  std::string unknown_token_;
  std::string prefix_;
  std::size_t max_chars_;
  TokenId unknown_ = kNone;
  PieceTrie initial_;
  PieceTrie continuing_;
  const std::uint64_t serial_ = new_model_identity();
};

}  // namespace

bool hf_detail::save_wordpiece_tables(const PretrainedModel& model, compiled::Writer& out) {
  const auto* wordpiece = dynamic_cast<const WordPieceModel*>(&model);
  if (wordpiece == nullptr) return false;
  wordpiece->save(out);
  return true;
}

std::shared_ptr<hf_detail::WordPieceTables> hf_detail::load_wordpiece_tables(
    compiled::Reader& in, std::uint64_t id_limit) {
  auto tables = std::make_shared<WordPieceTables>();
  tables->unknown = in.value<TokenId>();
  if (tables->unknown != kNone && tables->unknown >= id_limit)
    throw compiled::Stale("WordPiece unknown id");
  const auto value_limit = static_cast<std::uint32_t>(std::min<std::uint64_t>(id_limit, kNone));
  for (PieceTrie* trie : {&tables->initial, &tables->continuing}) {
    const auto nodes = in.value<std::uint64_t>();
    const auto dense = in.value<std::uint64_t>();
    // Sizes checked against the entry before anything is allocated for them.
    in.expect(nodes, PieceTrie::node_bytes());
    in.expect(dense, sizeof(std::uint32_t));
    if (!trie->assign(nodes, dense, value_limit,
                      [&](void* to, std::size_t bytes) { in.read(to, bytes); }))
      throw compiled::Stale("WordPiece trie");
  }
  return tables;
}

std::unique_ptr<PretrainedModel> hf_detail::make_wordpiece_model(
    std::shared_ptr<const TokenTable> tokens, std::string unknown_token,
    std::string continuing_subword_prefix, std::size_t max_input_chars_per_word,
    std::shared_ptr<WordPieceTables> tables) {
  return std::make_unique<WordPieceModel>(std::move(tokens), std::move(unknown_token),
                                          std::move(continuing_subword_prefix),
                                          max_input_chars_per_word, std::move(*tables));
}

std::unique_ptr<PretrainedModel> make_wordpiece_model(std::shared_ptr<const TokenTable> tokens,
                                                      std::string unknown_token,
                                                      std::string continuing_subword_prefix,
                                                      std::size_t max_input_chars_per_word,
                                                      const std::string& where) {
  return std::make_unique<WordPieceModel>(std::move(tokens), std::move(unknown_token),
                                          std::move(continuing_subword_prefix),
                                          max_input_chars_per_word, where);
}

}  // namespace tokenlab
