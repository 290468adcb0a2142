// The conformance suite's order and its runner. The checks live by concern in
// conformance_{training,encoding,models,concurrency}.cpp (conformance_internal.hpp),
// the child-process runner in conformance_isolated.cpp.
#include "tokenlab/conformance.hpp"

#include <iterator>

#include "conformance_internal.hpp"
#include "tokenlab/plugin_checks.hpp"

namespace tokenlab {

namespace {

using namespace conformance;

struct Step {
  const char* name;
  Check check;
  bool fatal;  // the checks after it need what it makes
};

// In the order they run. The first three and encode are fatal: the others need a
// trained segmenter and its encodings.
constexpr Step kSteps[] = {
    {"creates a segmenter", creates, true},
    {"name, version and capabilities match the plugin descriptor", descriptor_matches, false},
    {"trains on a small multilingual corpus", trains, true},
    {"encode() appends each word's ids to its output", encodes, true},
    {"every id is below the vocabulary size, for seen and unseen words", ids_in_range, false},
    {"each id decodes to text of its own piece", ids_decode_to_own_piece, false},
    {"decode(encode(w)) == w when no unknown token appears", round_trips, false},
    {"unseen words and characters are encoded, not dropped", unseen_encoded, false},
    {"training is deterministic: identical model bytes at 1 and 2 threads", deterministic_training,
     false},
    {"vocab_size is honoured: never more entries, fewer only with a note saying why",
     honours_vocab_size, false},
    {"max_steps is honoured: a traced training stops after max_steps steps", honours_max_steps,
     false},
    {"the vocabulary is used: frequent words take fewer tokens than characters", uses_its_pieces,
     false},
    {"save then load gives identical encodings", save_load, false},
    {"load rejects garbage with an error, not a crash", rejects_garbage, false},
    {"two models in one process each encode with their own vocabulary", two_models, false},
    {"concurrent encoding equals serial encoding", concurrent_encoding, false},
    {"the empty word encodes to no tokens", empty_word, false},
    {"a 1 MB single word encodes", long_word, false},
    {"an unknown option is rejected with a message naming it", unknown_option, false},
};

// Runs the checks in order, reporting each to the listener as it starts and ends.
class Suite {
 public:
  explicit Suite(const ConformanceListener& listener) : listener_(listener) {}

  // Runs one check; returns whether it passed.
  bool run(const Step& step, Run& state) {
    if (listener_.on_start) listener_.on_start(step.name);
    ConformanceCheck result{step.name, false, {}, false, {}};
    state.warning.clear();
    try {
      result.passed = step.check(state, result.detail);
    } catch (const CheckFailure& e) {
      result.detail = e.what();
    } catch (const std::exception& e) {
      result.detail = "threw " + describe_exception(e);
    } catch (...) {
      result.detail = "threw something that is not a std::exception";
    }
    if (result.passed) result.warning = std::move(state.warning);
    report(std::move(result));
    return results_.back().passed;
  }

  // After a fatal failure: every check not run yet is reported as skipped.
  void skip_rest() {
    const std::string reason = "skipped: '" + results_.back().check + "' failed";
    for (std::size_t i = results_.size(); i < std::size(kSteps); ++i)
      report({kSteps[i].name, false, reason, true, {}});
  }

  std::vector<ConformanceCheck> done() { return std::move(results_); }

 private:
  void report(ConformanceCheck result) {
    results_.push_back(std::move(result));
    if (listener_.on_result) listener_.on_result(results_.back());
  }

  const ConformanceListener& listener_;
  std::vector<ConformanceCheck> results_;
};

}  // namespace

const std::vector<std::string>& conformance_checks() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const Step& step : kSteps) out.emplace_back(step.name);
    return out;
  }();
  return names;
}

std::vector<ConformanceCheck> run_conformance(const PluginRegistry& registry,
                                              const std::string& plugin_name,
                                              const ConformanceListener& listener) {
  Suite suite(listener);
  Run state(registry, plugin_name);
  for (const Step& step : kSteps)
    if (!suite.run(step, state) && step.fatal) {
      suite.skip_rest();
      break;
    }
  return suite.done();
}

}  // namespace tokenlab
