// The application layer's option tables: one declaration of each option, from
// which the CLI's parser fills typed requests (framework/app).
#include <catch2/catch.hpp>

#include <set>
#include <string>
#include <vector>

#include "tokenlab/app/option_tables.hpp"
#include "tokenlab/app/program_options.hpp"
#include "tokenlab/app/usage_error.hpp"

namespace app = tokenlab::app;
namespace po = boost::program_options;

namespace {

// argv parsed into request with the table's description, as the CLI does.
template <class Request>
void parse(const app::OptionTable<Request>& table, Request& request,
           const std::vector<std::string>& args) {
  po::options_description desc("options");
  app::add_options(desc, table, request);
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(desc).run(), vm);
  po::notify(vm);
}

template <class Request>
void check_distinct(const app::OptionTable<Request>& table) {
  std::set<std::string> names;
  std::set<std::string> keywords;
  for (const auto& spec : table.specs()) {
    CAPTURE(spec.info.name);
    CHECK(names.insert(spec.info.name).second);
    CHECK(keywords.insert(spec.info.python_keyword()).second);
    CHECK_FALSE(spec.info.help.empty());
  }
}

}  // namespace

TEST_CASE("every table names each option and keyword once, each with help", "[app]") {
  check_distinct(app::count_table());
  check_distinct(app::train_table());
  check_distinct(app::compare_table());
  check_distinct(app::sweep_table());
  check_distinct(app::export_table());
}

TEST_CASE("compare's command line fills a typed request", "[app]") {
  app::CompareRequest request;
  parse(app::compare_table(), request,
        {"--corpus",
         "en=en.txt",
         "hi=hi.txt",
         "--tokenizer",
         "gpt4o=tokenizer.json",
         "--option",
         "bpe:units=bytes",
         "--option",
         "unigram:seed_size=1000",
         "--algorithms",
         "bpe,unigram",
         "-v",
         "300",
         "--held-out",
         "0.2",
         "--d-model",
         "768,4096",
         "--threads",
         "2",
         "--squeeze-spaces"});
  CHECK(request.corpus == std::vector<tokenlab::CorpusEntry>{{"en", "en.txt"}, {"hi", "hi.txt"}});
  CHECK(request.tokenizers == std::vector<app::NamedPath>{{"gpt4o", "tokenizer.json"}});
  CHECK(request.options.plugin_options ==
        app::PluginOptionMap{{"bpe", {{"units", "bytes"}}}, {"unigram", {{"seed_size", "1000"}}}});
  CHECK(request.algorithms == app::OptionalList{{"bpe", "unigram"}});
  CHECK(request.options.training.vocab_size == 300);
  CHECK(request.options.held_out == 0.2);
  CHECK(request.options.d_models == std::vector<std::size_t>{768, 4096});
  CHECK(request.pipeline.threads == 2);
  CHECK(request.options.protocol.squeeze_spaces);
}

TEST_CASE("options left out keep the request's own defaults", "[app]") {
  app::SweepRequest request;
  parse(app::sweep_table(), request, {});
  const app::SweepRequest defaults;
  CHECK(request.vocab_sizes == defaults.vocab_sizes);
  CHECK(request.options.held_out == defaults.options.held_out);
  CHECK(request.options.bootstrap_samples == 1000);
  CHECK(request.unit == "auto");
  CHECK_FALSE(request.algorithms.has_value());  // every plugin, not an empty list
  CHECK(request.pipeline.normalization == "nfc");
}

TEST_CASE("numbers outside an option's range are refused with the range", "[app]") {
  app::CompareRequest compare;
  CHECK_THROWS_WITH(parse(app::compare_table(), compare, {"--held-out", "2"}),
                    Catch::Contains("expected a number in [0, 0.99]"));
  app::TrainRequest train;
  CHECK_THROWS_WITH(parse(app::train_table(), train, {"-a", "bpe", "-v", "-1"}),
                    Catch::Contains("expected an integer in [1, 1073741824]"));
  app::SweepRequest sweep;
  CHECK_THROWS_WITH(parse(app::sweep_table(), sweep, {"--vocab-sizes", "100,x"}),
                    Catch::Contains("the value 'x'"));
}

TEST_CASE("structured values are checked as they are parsed", "[app]") {
  app::CompareRequest compare;
  CHECK_THROWS_AS(parse(app::compare_table(), compare, {"--tokenizer", "no-equals"}),
                  app::UsageError);
  CHECK_THROWS_WITH(parse(app::compare_table(), compare, {"--option", "units=bytes"}),
                    "--option expects ALGO:key=value, got 'units=bytes'");
  app::TrainRequest train;
  CHECK_THROWS_WITH(
      parse(app::train_table(), train,
            {"-a", "bpe", "-v", "9", "--option", "units=bytes", "--option", "units=chars"}),
      "--option units given twice ('bytes' and 'chars')");
}

TEST_CASE("train's special tokens: absent, empty and listed differ", "[app]") {
  app::TrainRequest absent;
  parse(app::train_table(), absent, {"-a", "bpe", "-v", "9"});
  CHECK_FALSE(absent.train.special_tokens.has_value());
  app::TrainRequest empty;
  parse(app::train_table(), empty, {"-a", "bpe", "-v", "9", "--special-tokens", ""});
  CHECK(empty.train.special_tokens == app::OptionalList{std::vector<std::string>{}});
  app::TrainRequest listed;
  parse(app::train_table(), listed, {"-a", "bpe", "-v", "9", "--special-tokens", "<unk>,<pad>"});
  CHECK(listed.train.special_tokens == app::OptionalList{{"<unk>", "<pad>"}});
}

TEST_CASE("each CLI option's Python keyword", "[app]") {
  const auto keywords = app::python_keywords();
  CHECK(keywords.at("vocab-size") == "vocab_size");
  CHECK(keywords.at("plugin-dir") == "plugin_dirs");
  CHECK(keywords.at("tokenizer") == "tokenizers");
  CHECK(keywords.at("model") == "models");
  CHECK(keywords.at("option") == "options");
}
