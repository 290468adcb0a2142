#include "tiktoken/compiled_tiktoken.hpp"

#include <bit>
#include <cstdint>

namespace tokenlab::tiktoken_detail {

namespace {

// What the entry's first section says it holds: a tiktoken file's fused
// encoder in this layout.
constexpr std::uint64_t kKind = 0x74696b746f6b6e31ull;  // "tiktokn1"

}  // namespace

compiled::Digest compiled_key(std::string_view content, std::string_view encoding) noexcept {
  const compiled::Digest bytes = compiled::digest_of(content);
  // "tiktoken:" in front: no tokenizer.json's entry shares a name with this.
  const compiled::Digest name = compiled::digest_of(std::string("tiktoken:") += encoding);
  return {bytes.low ^ std::rotl(name.low, 17), bytes.high ^ std::rotl(name.high, 29)};
}

std::optional<CompiledTiktoken> read_compiled_tiktoken(const ModelCache& cache,
                                                       const compiled::Digest& key) {
  auto in = compiled::Reader::open(compiled::entry_path(cache, key), key);
  if (!in) return std::nullopt;
  try {
    if (in->value<std::uint64_t>() != kKind) return std::nullopt;
    CompiledTiktoken c;
    c.count = in->value<std::uint64_t>();
    c.id_limit = in->value<std::uint64_t>();
    if (c.count > c.id_limit || c.id_limit > std::uint64_t{TokenTable::kMaxId} + 1)
      throw compiled::Stale("ranks");
    const auto specials = in->value<std::uint64_t>();
    in->expect(specials, 16);
    for (std::uint64_t i = 0; i < specials; ++i) {
      const auto id = in->value<TokenId>();
      c.specials.emplace_back(in->string(), id);
    }
    c.encoder = ByteLevelEncoder::load(*in);
    in->finish();  // from here on, what was read is the entry as written
    return c;
  } catch (const compiled::Stale&) {
    return std::nullopt;
  }
}

bool write_compiled_tiktoken(const ModelCache& cache, const compiled::Digest& key,
                             const PretrainedPipeline& pipeline) {
  compiled::Writer out;
  out.value(kKind);
  out.value(static_cast<std::uint64_t>(pipeline.tokens->size()));
  out.value(static_cast<std::uint64_t>(pipeline.tokens->id_limit()));
  const auto& specials = pipeline.added.tokens();
  out.value(static_cast<std::uint64_t>(specials.size()));
  for (const AddedToken& token : specials) {
    out.value(token.id);
    out.string(token.content);
  }
  pipeline.byte_level->save(out, nullptr);
  return out.commit(compiled::entry_path(cache, key), key, cache.max_entries);
}

}  // namespace tokenlab::tiktoken_detail
