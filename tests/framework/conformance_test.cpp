// The conformance suite catches each broken segmenter: one deliberately broken
// in-process segmenter per check, registered with PluginRegistry::add_static
// (the static registration path), beside a correct one that passes everything.
#include <catch2/catch.hpp>
#include <csignal>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <sstream>

#include "tokenlab/conformance.hpp"
#include "tokenlab/plugin_checks.hpp"
#include "tokenlab/plugin_registry.hpp"
#include "tokenlab/segmenter_support.hpp"
#include "tokenlab/vocabulary_segmenter.hpp"

namespace {

using tokenlab::ConformanceCheck;
using tokenlab::PluginRegistry;
using tokenlab::TokenId;

enum class Fault {
  none,
  name_differs,
  train_throws,
  encode_clears,
  id_equals_size,
  ids_off_by_one,
  decode_drops,
  unseen_dropped,
  thread_dependent,
  load_forgets,
  load_accepts_garbage,
  shared_buffer,
  empty_word_emits,
  long_word_nothing,
  options_accepted,
  segfault,
  aborts,
};

constexpr const char* fault_name(Fault f) {
  constexpr const char* names[] = {"good",
                                   "name_differs",
                                   "train_throws",
                                   "encode_clears",
                                   "id_equals_size",
                                   "ids_off_by_one",
                                   "decode_drops",
                                   "unseen_dropped",
                                   "thread_dependent",
                                   "load_forgets",
                                   "load_accepts_garbage",
                                   "shared_buffer",
                                   "empty_word_emits",
                                   "long_word_nothing",
                                   "options_accepted",
                                   "segfault",
                                   "aborts"};
  return names[static_cast<int>(f)];
}

// One token per code point; unknown characters become <unk>. F breaks one contract.
template <Fault F>
class Faulty final : public tokenlab::Segmenter {
 public:
  static constexpr const char* kName = fault_name(F);
  static constexpr const char* kVersion = "1.0.0";
  static constexpr const char* kDescription = "a conformance test segmenter";
  static constexpr tokenlab::Capabilities kCapabilities = tokenlab::kCapabilityNone;

  std::string name() const override { return F == Fault::name_differs ? "other" : kName; }
  std::string version() const override { return kVersion; }

  void train(const tokenlab::WordCounts& counts, const tokenlab::TrainOptions& options,
             tokenlab::TrainingObserver* observer) override {
    if (F == Fault::train_throws) throw tokenlab::Error("this segmenter never trains");
    if (F != Fault::options_accepted) tokenlab::OptionReader(kName, options.extra, {});
    tokenlab::Vocabulary v;
    tokenlab::add_special_tokens(v, options, {"<unk>"}, "<unk>", kName);
    if (F == Fault::thread_dependent && options.threads == 2) v.add("threads");
    for (const auto& e : counts.entries())
      for (const auto c : tokenlab::utf8::split_code_points(e.word))
        if (v.size() < options.vocab_size) v.add_or_find(std::string(c));
    if (observer != nullptr && v.size() < options.vocab_size)
      observer->on_message("every character kept: " + std::to_string(v.size()) + " entries");
    vocabulary_ = std::move(v);
    lowercase_ = true;
  }

  void encode(std::string_view word, std::vector<TokenId>& out) const override {
    if (F == Fault::encode_clears) out.clear();
    if (F == Fault::empty_word_emits && word.empty()) out.push_back(0);
    if (F == Fault::long_word_nothing && word.size() > 100000) return;
    if (F == Fault::segfault && word.size() > 100000) std::raise(SIGSEGV);
    if (F == Fault::aborts && word.size() > 100000) std::abort();
    std::vector<TokenId>& ids = F == Fault::shared_buffer ? buffer_ : local_ids(out);
    if (F == Fault::shared_buffer) ids.clear();
    for (const auto c : tokenlab::utf8::split_code_points(word)) {
      const auto id = vocabulary_.find(c);
      if (!id && F == Fault::unseen_dropped) continue;
      TokenId t = id && !vocabulary_.is_special(*id) ? *id : *vocabulary_.unknown_id();
      if (!id && F == Fault::id_equals_size) t = static_cast<TokenId>(vocabulary_.size());
      if (F == Fault::ids_off_by_one && t + 1 < vocabulary_.size()) ++t;
      if (F == Fault::load_forgets && !lowercase_) t = *vocabulary_.unknown_id();
      ids.push_back(t);
    }
    if (F == Fault::shared_buffer) out.insert(out.end(), ids.begin(), ids.end());
  }

  std::string decode(std::span<const TokenId> ids) const override {
    std::vector<TokenId> fixed(ids.begin(), ids.end());
    if (F == Fault::ids_off_by_one)
      for (auto& id : fixed)
        if (id > 1) --id;
    std::string text = tokenlab::decode_pieces(vocabulary_, fixed);
    if (F == Fault::decode_drops && text.size() > 4) text.pop_back();
    return text;
  }

  const tokenlab::Vocabulary& vocabulary() const override { return vocabulary_; }
  void save(std::ostream& out) const override {
    tokenlab::PayloadOArchive ar(out, kName, 1);
    ar << boost::serialization::make_nvp("vocabulary", vocabulary_);
  }
  void load(std::istream& in) override {
    if (F == Fault::load_accepts_garbage && in.peek() != 'T') return;  // not a payload: ignored
    tokenlab::PayloadIArchive ar(in, kName, 1);
    tokenlab::Vocabulary v;
    ar >> boost::serialization::make_nvp("vocabulary", v);
    ar.finish();
    vocabulary_ = std::move(v);
    lowercase_ = F != Fault::load_forgets;
  }

 private:
  // encode() appends straight to out unless the fault shares a buffer.
  static std::vector<TokenId>& local_ids(std::vector<TokenId>& out) { return out; }
  tokenlab::Vocabulary vocabulary_;
  bool lowercase_ = false;  // trained state that load() must restore
  mutable std::vector<TokenId> buffer_;
};

template <Fault F>
std::vector<ConformanceCheck> check(bool isolated = false) {
  PluginRegistry registry;
  registry.add_static(tokenlab::plugin_descriptor<Faulty<F>>());
  return isolated ? tokenlab::run_conformance_isolated(registry, fault_name(F))
                  : tokenlab::run_conformance(registry, fault_name(F));
}

const ConformanceCheck& result(const std::vector<ConformanceCheck>& results,
                               const std::string& name) {
  for (const auto& r : results)
    if (r.check == name) return r;
  FAIL("no check named " << name);
  throw std::logic_error("unreachable");
}

// The check named `failing` fails (saying what was expected); every check before it passes.
void expect_only_failure(const std::vector<ConformanceCheck>& results, const std::string& failing,
                         const std::string& detail = "expected") {
  REQUIRE(results.size() == tokenlab::conformance_checks().size());
  const auto& r = result(results, failing);
  INFO(r.check << ": " << r.detail);
  CHECK_FALSE(r.passed);
  CHECK_THAT(r.detail, Catch::Contains(detail));
  for (const auto& other : results) {
    if (other.check == failing) break;
    INFO(other.check << ": " << other.detail);
    CHECK(other.passed);
  }
}

}  // namespace

TEST_CASE("conformance: a correct segmenter passes every check", "[conformance]") {
  const auto results = check<Fault::none>();
  REQUIRE(results.size() == tokenlab::conformance_checks().size());
  for (const auto& r : results) {
    INFO(r.check << ": " << r.detail);
    CHECK(r.passed);
    CHECK_FALSE(r.skipped);
  }
}

TEST_CASE("conformance: each broken segmenter fails its check", "[conformance]") {
  SECTION("name differs from the descriptor, saying what was expected") {
    expect_only_failure(check<Fault::name_differs>(),
                        "name, version and capabilities match the plugin descriptor",
                        "name() 'other', expected 'name_differs'");
  }
  SECTION("ids equal to the vocabulary size for unknown characters") {
    expect_only_failure(check<Fault::id_equals_size>(),
                        "every id is below the vocabulary size, for seen and unseen words");
  }
  SECTION("ids off by one, in range, and decode compensating") {
    expect_only_failure(check<Fault::ids_off_by_one>(), "each id decodes to text of its own piece");
  }
  SECTION("decode loses text") {
    expect_only_failure(check<Fault::decode_drops>(),
                        "decode(encode(w)) == w when no unknown token appears");
  }
  SECTION("unseen characters are never encoded") {
    expect_only_failure(check<Fault::unseen_dropped>(),
                        "unseen words and characters are encoded, not dropped");
  }
  SECTION("training depends on the thread count") {
    expect_only_failure(check<Fault::thread_dependent>(),
                        "training is deterministic: identical model bytes at 1 and 2 threads");
  }
  SECTION("load forgets trained state") {
    expect_only_failure(check<Fault::load_forgets>(), "save then load gives identical encodings");
  }
  SECTION("load accepts garbage") {
    expect_only_failure(check<Fault::load_accepts_garbage>(),
                        "load rejects garbage with an error, not a crash");
  }
  SECTION("encode writes a shared mutable buffer (a data race)") {
    // Run in a child process: the race may corrupt memory instead of giving wrong ids.
    const auto results = check<Fault::shared_buffer>(true);
    const auto& r = result(results, "concurrent encoding equals serial encoding");
    INFO(r.detail);
    CHECK_FALSE(r.passed);
  }
  SECTION("the empty word gives ids") {
    expect_only_failure(check<Fault::empty_word_emits>(), "the empty word encodes to no tokens");
  }
  SECTION("a long word gives nothing") {
    expect_only_failure(check<Fault::long_word_nothing>(), "a 1 MB single word encodes");
  }
  SECTION("an unknown option is accepted") {
    expect_only_failure(check<Fault::options_accepted>(),
                        "an unknown option is rejected with a message naming it");
  }
}

TEST_CASE("conformance: after a fatal failure the rest are listed as skipped", "[conformance]") {
  SECTION("training throws") {
    const auto results = check<Fault::train_throws>();
    REQUIRE(results.size() == tokenlab::conformance_checks().size());
    CHECK_FALSE(result(results, "trains on a small multilingual corpus").passed);
    const auto& skipped = result(results, "a 1 MB single word encodes");
    CHECK(skipped.skipped);
    CHECK_THAT(skipped.detail, Catch::Contains("trains on a small multilingual corpus"));
  }
  SECTION("encode clears its output") {
    const auto results = check<Fault::encode_clears>();
    const auto& r = result(results, "encode() appends each word's ids to its output");
    CHECK_FALSE(r.passed);
    CHECK_THAT(r.detail, Catch::Contains("expected encode() to append"));
    CHECK(result(results, "concurrent encoding equals serial encoding").skipped);
  }
  SECTION("the factory gives no segmenter") {
    PluginRegistry registry;
    tokenlab_plugin_descriptor d = *tokenlab::plugin_descriptor<Faulty<Fault::none>>();
    d.name = "no_factory";
    d.make_segmenter = [](char* error, std::size_t size) -> tokenlab::Segmenter* {
      std::snprintf(error, size, "no segmenter today");
      return nullptr;
    };
    registry.add_static(&d);
    const auto results = tokenlab::run_conformance(registry, "no_factory");
    REQUIRE(results.size() == tokenlab::conformance_checks().size());
    CHECK_FALSE(results.front().passed);
    CHECK_THAT(results.front().detail, Catch::Contains("no segmenter today"));
    for (std::size_t i = 1; i < results.size(); ++i) CHECK(results[i].skipped);
  }
}

TEST_CASE("conformance: a crashing plugin is a failed check naming the signal", "[conformance]") {
  SECTION("segmentation fault") {
    const auto results = check<Fault::segfault>(true);
    REQUIRE(results.size() == tokenlab::conformance_checks().size());
    CHECK(result(results, "concurrent encoding equals serial encoding").passed);
    const auto& r = result(results, "a 1 MB single word encodes");
    CHECK_FALSE(r.passed);
    CHECK_THAT(r.detail, Catch::Contains("SIGSEGV") && Catch::Contains("during this check"));
    CHECK(result(results, "an unknown option is rejected with a message naming it").skipped);
  }
  SECTION("abort") {
    const auto results = check<Fault::aborts>(true);
    const auto& r = result(results, "a 1 MB single word encodes");
    CHECK_THAT(r.detail, Catch::Contains("SIGABRT"));
  }
  SECTION("a correct plugin passes in the child too") {
    for (const auto& r : check<Fault::none>(true)) {
      INFO(r.check << ": " << r.detail);
      CHECK(r.passed);
    }
  }
}

TEST_CASE("describe_exception names an exception by its demangled type and its message",
          "[conformance]") {
  std::optional<int> none;
  try {
    (void)none.value();
    FAIL("value() of an empty optional did not throw");
  } catch (const std::exception& e) {
    CHECK(tokenlab::describe_exception(e) == "std::bad_optional_access: bad optional access");
  }
  CHECK(tokenlab::describe_exception(tokenlab::Error("no such option")) ==
        "tokenlab::Error: no such option");
}

TEST_CASE("check_vocabulary_size refuses more entries than requested, naming plugin and sizes",
          "[conformance]") {
  Faulty<Fault::none> segmenter;
  tokenlab::TrainOptions options;
  options.vocab_size = 40;
  tokenlab::WordCounts counts;
  counts.add("\u2581abcdefghijklmnopqrstuvwxyz", 3);
  counts.add("\u2581ABCDEFGHIJKLMNOPQRSTUVWXYZ", 2);
  segmenter.train(counts, options, nullptr);
  REQUIRE(segmenter.vocabulary().size() == 40);
  CHECK_NOTHROW(tokenlab::check_vocabulary_size(segmenter, 40));
  CHECK_NOTHROW(tokenlab::check_vocabulary_size(segmenter, 1000));
  CHECK_THROWS_WITH(tokenlab::check_vocabulary_size(segmenter, 39),
                    Catch::Contains("plugin 'good' made a vocabulary of 40 entries, more than "
                                    "the 39 requested"));
}
