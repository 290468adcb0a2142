// VocabularySegmenter: what the base class does for a plugin (vocabulary and
// specials, checked ids, tagged and versioned save/load with the subclass's
// fields), and TOKENLAB_DEFINE_PLUGIN's descriptor read from the class constants.
#include <catch2/catch.hpp>
#include <sstream>

#include "tokenlab/plugin_registry.hpp"
#include "tokenlab/vocabulary_segmenter.hpp"

namespace {

using tokenlab::TokenId;

template <std::uint32_t Format>
class Chars final : public tokenlab::VocabularySegmenter<Chars<Format>> {
 public:
  static constexpr const char* kName = "chars";
  static constexpr const char* kVersion = "2.3.4";
  static constexpr const char* kDescription = "one token per code point";
  static constexpr tokenlab::Capabilities kCapabilities = tokenlab::kCapabilityTrace;
  static constexpr std::uint32_t kFormatVersion = Format;

  void train(const tokenlab::WordCounts& counts, const tokenlab::TrainOptions& options,
             tokenlab::TrainingObserver*) override {
    tokenlab::Vocabulary v = this->new_vocabulary(options, counts);
    this->set_vocabulary(std::move(v));
    bonus_ = 7;
  }
  void encode(std::string_view word, std::vector<TokenId>& out) const override {
    for (const auto c : tokenlab::utf8::split_code_points(word))
      out.push_back(this->find_piece(c).value_or(this->unknown_id()));
  }
  std::uint64_t bonus_ = 0;

 protected:
  void save_fields(tokenlab::PayloadOArchive& ar) const override {
    ar << boost::serialization::make_nvp("bonus", bonus_);
  }
  std::function<void()> load_fields(tokenlab::PayloadIArchive& ar,
                                    const tokenlab::Vocabulary&) override {
    std::uint64_t bonus = 0;
    ar >> BOOST_SERIALIZATION_NVP(bonus);
    if (bonus > 100) ar.fail("bad bonus");
    return [this, bonus] { bonus_ = bonus; };
  }
};

tokenlab::WordCounts counts_of(std::initializer_list<const char*> words) {
  tokenlab::WordCounts counts;
  for (const char* w : words) counts.add(w);
  return counts;
}

tokenlab::TrainOptions small() {
  tokenlab::TrainOptions o;
  o.vocab_size = 50;
  o.character_coverage = 1.0;
  o.threads = 1;
  return o;
}

}  // namespace

TEST_CASE("VocabularySegmenter: identity from the class constants", "[vocabulary_segmenter]") {
  const Chars<1> s;
  CHECK(s.name() == "chars");
  CHECK(s.version() == "2.3.4");
  CHECK(s.capabilities() == tokenlab::kCapabilityTrace);
  const auto* d = tokenlab::plugin_descriptor<Chars<1>>();
  CHECK(std::string(d->name) == "chars");
  CHECK(std::string(d->version) == "2.3.4");
  CHECK(std::string(d->description) == "one token per code point");
  CHECK(d->capabilities == tokenlab::kCapabilityTrace);
  tokenlab::PluginRegistry registry;
  CHECK(registry.add_static(d).name == "chars");
  CHECK(registry.create("chars")->name() == "chars");
  CHECK_THROWS_WITH(registry.add_static(d), Catch::Contains("already loaded"));
}

TEST_CASE("VocabularySegmenter: specials, alphabet, decode and checked ids",
          "[vocabulary_segmenter]") {
  Chars<1> s;
  s.train(counts_of({"\u2581ab", "\u2581ba"}), small(), nullptr);
  CHECK(s.vocabulary().pieces() == std::vector<std::string>{"<unk>", "a", "b", "\u2581"});
  std::vector<TokenId> ids;
  s.encode("\u2581abz<unk>", ids);
  CHECK(s.decode(ids) == "\u2581ab\u2047\u2047\u2047\u2047\u2047\u2047");
  CHECK(s.display_piece(1) == "a");
  const std::vector<TokenId> bad{1, 4};
  CHECK_THROWS_WITH(s.decode(bad), Catch::Contains("chars produced token id 4") &&
                                       Catch::Contains("vocabulary of 4 entries"));
  CHECK_THROWS_WITH(s.display_piece(9), Catch::Contains("chars produced token id 9"));
}

TEST_CASE("VocabularySegmenter: save/load with the subclass's fields, checked",
          "[vocabulary_segmenter]") {
  Chars<1> s;
  s.train(counts_of({"\u2581ab"}), small(), nullptr);
  std::stringstream saved;
  s.save(saved);
  const std::string bytes = saved.str();

  Chars<1> loaded;
  std::istringstream in(bytes);
  loaded.load(in);
  CHECK(loaded.vocabulary().pieces() == s.vocabulary().pieces());
  CHECK(loaded.bonus_ == 7);

  SECTION("another format version is refused, naming both") {
    Chars<2> newer;
    std::istringstream again(bytes);
    CHECK_THROWS_WITH(newer.load(again), Catch::Contains("unsupported format version 1") &&
                                             Catch::Contains("this build reads 2"));
  }
  SECTION("a bad field or trailing bytes keep the current model") {
    Chars<1> target;
    target.train(counts_of({"\u2581xyz"}), small(), nullptr);
    const auto before = target.vocabulary().pieces();
    std::string bad_field = bytes;
    bad_field[bad_field.size() - 8] = 101;  // bonus 101 > 100
    std::istringstream bad(bad_field);
    CHECK_THROWS_WITH(target.load(bad), Catch::Contains("bad bonus"));
    std::istringstream trailing(bytes + "x");
    CHECK_THROWS_WITH(target.load(trailing), Catch::Contains("unexpected bytes"));
    CHECK(target.vocabulary().pieces() == before);
    CHECK(target.bonus_ == 7);
  }
}
