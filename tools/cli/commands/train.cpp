// tokenlab train: one segmenter trained and saved as a model file.
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cli.hpp"
#include "commands/input_lists.hpp"
#include "tokenlab/app/any_model.hpp"
#include "tokenlab/app/option_tables.hpp"
#include "tokenlab/app/workflows.hpp"
#include "tokenlab/atomic_file.hpp"
#include "tokenlab/model_file.hpp"
#include "tokenlab/plugin_registry.hpp"
#include "tokenlab/pretrained/pretrained_tokenizer.hpp"
#include "tokenlab/pretrained/retraining.hpp"
#include "tokenlab/segmenter.hpp"
#include "tokenlab/tokenizer.hpp"
#include "tokenlab/training_observer.hpp"
#include "tokenlab/word_counts.hpp"

namespace tokenlab::cli {

namespace {

// train --like: the file's own kind of file, or a .tkl of it (as import makes).
int train_like(app::TrainRequest& train, const std::string& output) {
  check_not_an_input(output, {train.like});
  const auto start = std::chrono::steady_clock::now();
  const RetrainedTokenizer retrained = app::retrain_like_request(train, app::note_to_stderr);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // Read back before writing: what is written must load as the file it claims to be.
  const PretrainedTokenizer check =
      PretrainedTokenizer::from_bytes(retrained.content, output, retrained.format);
  with_binary_output(output, [&](const std::filesystem::path& path) {
    if (path.extension() == ".tkl") {
      ModelFile file;
      file.header.plugin_name = std::string(kPretrainedPluginPrefix) + retrained.format;
      file.header.plugin_version = "1";
      file.payload = retrained.content;
      write_model_file(path, file);
    } else {
      write_file_atomically(path, [&](std::ostream& out) { out << retrained.content; });
    }
  });
  std::cerr << retrained.format << " like " << train.like << ": vocabulary "
            << check.vocabulary_size() << ", trained in " << seconds << " s -> " << output << '\n';
  return kExitOk;
}

}  // namespace

int cmd_train(const std::vector<std::string>& args) {
  app::TrainRequest train;
  std::string output;
  po::options_description desc("options");
  app::add_options(desc, app::train_table(), train);
  desc.add_options()("output,o", po::value(&output)->required(),
                     "model file to write (- for stdout when it is not a terminal)");
  po::variables_map vm;
  if (!parse("train",
             "(--algorithm NAME | --like FILE) --vocab-size N (--corpus FILE... | --counts "
             "COUNTS.tsv) -o MODEL",
             desc, {}, args, vm))
    return kExitOk;
  if (train.corpus.empty() == train.counts_files.empty())
    throw UsageError("give exactly one of --corpus and --counts");
  check_binary_output_path(output);
  check_not_an_input(output, concat(train.corpus, train.counts_files));
  if (!train.like.empty()) return train_like(train, output);
  PluginRegistry registry;
  load_plugins(registry, train.plugin_dirs);
  std::shared_ptr<Segmenter> segmenter = app::prepare_training(registry, train);
  WordCounts counts;
  {
    Progress progress;
    counts = app::training_counts(
        train,
        [&](std::uint64_t bytes) {
          progress.update("counting: " + std::to_string(bytes >> 20) + " MiB");
        },
        app::note_to_stderr);
  }
  struct Observer : TrainingObserver {
    Progress progress;
    void on_progress(std::string_view stage, double fraction) override {
      progress.update(std::string(stage) + ": " + std::to_string(static_cast<int>(fraction * 100)) +
                      "%");
    }
    void on_message(std::string_view message) override {
      progress.done();
      std::cerr << message << '\n';
    }
  } observer;
  const auto start = std::chrono::steady_clock::now();
  const Tokenizer tokenizer =
      app::train_tokenizer(segmenter, train, counts, &observer, app::note_to_stderr);
  observer.progress.done();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  with_binary_output(output, [&](const std::filesystem::path& path) { tokenizer.save(path); });
  std::cerr << train.algorithm << ": vocabulary " << segmenter->vocabulary().size()
            << ", trained in " << seconds << " s on " << counts.size() << " distinct words -> "
            << output << '\n';
  return kExitOk;
}

}  // namespace tokenlab::cli
