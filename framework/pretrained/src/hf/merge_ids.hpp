// File: hf/merge_ids.hpp (private to tokenlab_pretrained)
// A tokenizer.json's BPE merges as token ids, looked up once while the file is
// read: the model and the fused byte-level encoder both take them, so neither
// looks 200,000 token strings up again (three lookups a merge were two thirds
// of loading GPT-4o's tokenizer.json).
//
//   const auto ids = resolve_merges(table, {{"a", "b"}}, "", "tokenizer.json: model");
//   ids[0] == MergeIds{*table.find("a"), *table.find("b"), *table.find("ab")}
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tokenlab/pretrained/components.hpp"
#include "tokenlab/pretrained/token_table.hpp"

namespace tokenlab::hf_detail {

struct MergeIds {
  TokenId left;
  TokenId right;
  TokenId merged;  // left's token then right's without the continuing prefix
  friend bool operator==(const MergeIds&, const MergeIds&) = default;
};

/// Each merge (left, right) as ids, in order. Throws Error naming
/// where.merges[i] when a token is not in tokens, right is shorter than
/// prefix, or the merged token is not in tokens (HF refuses such a file too).
std::vector<MergeIds> resolve_merges(
    const TokenTable& tokens, std::span<const std::pair<std::string_view, std::string_view>> merges,
    std::string_view prefix, const std::string& where);

/// The same without the error: out[i] for each merge until one fails (out has
/// merges.size() entries); returns the index of the first merge that fails, or
/// merges.size(). What a second thread runs while the file is still being read.
std::size_t resolve_merges_into(
    const TokenTable& tokens, std::span<const std::pair<std::string_view, std::string_view>> merges,
    std::string_view prefix, std::span<MergeIds> out);

/// A "left right" merge string split at its one space; nullopt when it has not
/// exactly one.
std::optional<std::pair<std::string_view, std::string_view>> split_merge(std::string_view s);

/// Merges as ids and what keeps them, shared without a copy by the model and
/// whatever else reads them: the vector a reader resolved, the mapping of a
/// compiled-model entry (hf/compiled_json.hpp), or a list made when first
/// asked for (an entry that leaves out the merges its byte-level encoder
/// implies: encoding never reads them).
class SharedMerges {
 public:
  SharedMerges() = default;
  /// ids, valid while owner lives.
  SharedMerges(std::shared_ptr<const void> owner, std::span<const MergeIds> ids)
      : owner_(std::move(owner)), ids_(ids) {}
  static SharedMerges of(std::vector<MergeIds> merges) {
    auto vector = std::make_shared<const std::vector<MergeIds>>(std::move(merges));
    return {vector, *vector};
  }
  /// The merges make returns, made at the first ids() (once, whichever
  /// thread asks first; the others wait for it).
  static SharedMerges deferred(std::function<std::vector<MergeIds>()> make) {
    SharedMerges m;
    m.deferred_ = std::make_shared<Deferred>();
    m.deferred_->make = std::move(make);
    return m;
  }
  [[nodiscard]] std::span<const MergeIds> ids() const {
    if (!deferred_) return ids_;
    std::call_once(deferred_->once, [&] {
      deferred_->made = deferred_->make();
      deferred_->make = nullptr;  // and what it held
    });
    return deferred_->made;
  }

 private:
  struct Deferred {
    std::once_flag once;
    std::function<std::vector<MergeIds>()> make;
    std::vector<MergeIds> made;
  };
  std::shared_ptr<const void> owner_;
  std::span<const MergeIds> ids_;
  std::shared_ptr<Deferred> deferred_;  // shared by the copies: made once for all
};

/// HF's BPE model over merges already resolved against tokens (as
/// make_bpe_model, which resolves them itself). The merge table and the
/// character index are built at the first encode, not here: a byte-level file's
/// fused encoder never needs them.
std::unique_ptr<PretrainedModel> make_bpe_model(std::shared_ptr<const TokenTable> tokens,
                                                SharedMerges merges, const BpeModelOptions& options,
                                                const std::string& where);

}  // namespace tokenlab::hf_detail
