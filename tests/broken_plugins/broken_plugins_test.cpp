// A student's plugin (student_plugin.cpp), correct and broken one way at a time:
// tokenlab check-plugin passes the correct one and fails each broken one with a
// message naming the problem; train, compare and encode refuse or name what a
// broken plugin did. The plugins are real files, loaded by the real CLI.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "cli/cli_support.hpp"

namespace {

using tokenlab::test::check_failure;
using tokenlab::test::data_file;
using tokenlab::test::run_tokenlab;
using tokenlab::test::RunResult;
using tokenlab::test::TempDir;

const std::string kPluginDir = TOKENLAB_STUDENT_PLUGIN_DIR;

std::string plugin_file(const std::string& name) {
  return kPluginDir + "/" + name + ".so";
}

RunResult check_plugin(const std::string& name) {
  return run_tokenlab({"check-plugin", plugin_file(name)});
}

}  // namespace

TEST_CASE("check-plugin passes the student's plugin written as it should be",
          "[broken_plugins][check-plugin]") {
  const RunResult r = check_plugin("student");
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::EndsWith(" passed, 0 failed\n"));
  CHECK_THAT(r.out, !Catch::Contains("FAIL") && !Catch::Contains("WARN"));
}

TEST_CASE("check-plugin fails each broken student plugin at its check, naming the problem",
          "[broken_plugins][check-plugin]") {
  struct Fault {
    std::string plugin;
    std::string check;
    std::vector<std::string> detail;
  };
  const Fault fault = GENERATE(values<Fault>({
      {"ignores_vocab_size",
       "vocab_size is honoured: never more entries, fewer only with a note saying why",
       {"asked for 300 entries, got ", "never holds more than vocab_size entries"}},
      {"one_too_many",
       "vocab_size is honoured: never more entries, fewer only with a note saying why",
       {"asked for 300 entries, got 301"}},
      {"word_keyed_cache",
       "two models in one process each encode with their own vocabulary",
       {"after model A (the whole corpus) encoded it on the same thread",
        "a cache keyed by the word but not by the model"}},
      {"unordered_vocabulary",
       "the vocabulary is used: frequent words take fewer tokens than characters",
       {"expected at most 0.50, got ", "without regard to their counts"}},
      {"ignores_max_steps",
       "max_steps is honoured: a traced training stops after max_steps steps",
       {"expected at most 3 steps with max_steps = 3", "tokenlab trace --merges 3"}},
      {"shared_memo",
       "concurrent encoding equals serial encoding",
       {"(serial), thread ", "shared mutable state in encode()"}},
      {"throws_in_encode",
       "encode() appends each word's ids to its output",
       {"encode('\u2581", "') threw std::bad_optional_access: bad optional access"}},
  }));
  const RunResult r = check_plugin(fault.plugin);
  INFO(fault.plugin << ":\n" << r.out << r.err);
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.err, Catch::Contains("error: " + fault.plugin + " failed"));
  const std::string line = "  FAIL  " + fault.check + "  (";
  const auto at = r.out.find(line);
  REQUIRE(at != std::string::npos);
  const std::string detail = r.out.substr(at, r.out.find('\n', at) - at);
  for (const auto& words : fault.detail) CHECK_THAT(detail, Catch::Contains(words));
}

TEST_CASE("check-plugin warns about a description left as new-plugin or the example wrote it",
          "[broken_plugins][check-plugin]") {
  const auto [plugin, warning] = GENERATE(table<std::string, std::string>({
      {"placeholder_description",
       "  WARN  the description is still the placeholder tokenlab new-plugin wrote: replace "
       "kDescription with one line saying what placeholder_description does"},
      {"example_description",
       "  WARN  the description is the example plugin's ('Greedy longest match over frequent "
       "character n-grams (example plugin)'): replace kDescription"},
  }));
  const RunResult r = check_plugin(plugin);
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains(warning));
  CHECK_THAT(r.out, Catch::EndsWith(" passed, 0 failed, 1 warning\n"));
}

TEST_CASE("tokenlab train refuses a vocabulary larger than requested, naming the plugin and sizes",
          "[broken_plugins][train]") {
  TempDir dir;
  const std::string plugin = GENERATE(as<std::string>{}, "one_too_many", "ignores_vocab_size");
  const std::string model = dir / "model.tkl";
  const RunResult r = run_tokenlab({"train", "--plugin-dir", kPluginDir, "-a", plugin, "-v", "100",
                                    "--corpus", data_file("corpus/english.txt"), "-o", model});
  INFO(plugin);
  check_failure(r, {"plugin '" + plugin + "' made a vocabulary of ",
                    " entries, more than the 100 requested"});
  CHECK_FALSE(std::filesystem::exists(model));
}

TEST_CASE("tokenlab compare refuses a vocabulary larger than requested in the plugin's row",
          "[broken_plugins][compare]") {
  const RunResult r =
      run_tokenlab({"compare", "--plugin-dir", kPluginDir, "--algorithms", "student,one_too_many",
                    "-v", "100", "--corpus", data_file("corpus/english.txt")});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.out + r.err,
             Catch::Contains("plugin 'one_too_many' made a vocabulary of 101 entries, more than "
                             "the 100 requested"));
  CHECK_THAT(r.out + r.err, !Catch::Contains("plugin 'student' made"));
}

TEST_CASE("tokenlab encode names the plugin, the line and the exception when a plugin throws",
          "[broken_plugins][encode]") {
  TempDir dir;
  const std::string model = dir / "model.tkl";
  REQUIRE(run_tokenlab({"train", "--plugin-dir", kPluginDir, "-a", "throws_in_encode", "-v", "200",
                        "--corpus", data_file("corpus/english.txt"), "-o", model})
              .exit_code == 0);
  const RunResult r = run_tokenlab({"encode", "--plugin-dir", kPluginDir, "-m", model},
                                   "the lowest\nthe \u16A0\u16A2 rune\nthe widest\n");
  check_failure(r, {"<stdin>:2: ", "plugin 'throws_in_encode'",
                    "std::bad_optional_access: bad optional access"});
}
