// tokenlab nbest: the k best segmentations of each word (unigram), or of a real
// SentencePiece model's text.
#include <cstddef>
#include <cstdio>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include "cli.hpp"
#include "commands/marker_display.hpp"
#include "tokenlab/app/any_model.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/plugin_registry.hpp"
#include "tokenlab/pre_tokenizer.hpp"
#include "tokenlab/pretrained/pretrained_tokenizer.hpp"
#include "tokenlab/segmenter.hpp"
#include "tokenlab/tokenizer.hpp"
#include "tokenlab/types.hpp"
#include "tokenlab/vocabulary_segmenter.hpp"

namespace tokenlab::cli {

int cmd_nbest(const std::vector<std::string>& args) {
  std::string model;
  bool ids_only = false;
  std::size_t k = 5;
  std::vector<std::string> texts;
  std::vector<std::string> plugin_dirs;
  po::options_description desc("options");
  desc.add_options()("model,m", po::value(&model)->required(),
                     "model: a .tkl with n-best (unigram), or a SentencePiece unigram .model")(
      "number,k", ranged(&k, std::size_t{1}, kMaxNBest)->default_value(5),
      "how many segmentations per word")("text", po::value(&texts)->multitoken(),
                                         "text to segment (its words are shown one by one)")(
      "ids", po::bool_switch(&ids_only),
      "print only the ids of each segmentation, one per line (as spm_encode "
      "--output_format=nbest_id)")("plugin-dir", po::value(&plugin_dirs),
                                   "extra plugin directory (repeatable)");
  po::positional_options_description positional;
  positional.add("text", -1);
  po::variables_map vm;
  if (!parse("nbest", "-m MODEL [-k N] [--ids] TEXT...", desc, positional, args, vm))
    return kExitOk;
  if (texts.empty()) throw UsageError("give the text to segment");
  if (k == 0) throw UsageError("-k must be at least 1");
  PluginRegistry registry;
  load_plugins(registry, plugin_dirs);
  const AnyModel loaded = load_any_model(model, registry);
  const auto print_ids = [](const std::vector<TokenId>& ids) {
    for (std::size_t i = 0; i < ids.size(); ++i) std::cout << (i ? " " : "") << ids[i];
    std::cout << '\n';
  };
  const auto print_score = [](double value) {
    char score[32];
    std::snprintf(score, sizeof score, "%10.4f", value);
    std::cout << "  " << score << "  ";
  };
  if (loaded.pretrained) {
    // A real model's n-best, as its own library lists it (SentencePiece unigram:
    // over the whole normalized text).
    const PretrainedTokenizer& pretrained = *loaded.pretrained;
    for (const auto& text : texts) {
      pretrained.for_each_nbest(text, k, [&](std::string_view piece, const auto& candidates) {
        if (ids_only) {
          for (const auto& candidate : candidates) print_ids(candidate.ids);
          return;
        }
        std::cout << piece << '\n';
        for (const auto& candidate : candidates) {
          print_score(candidate.score);
          for (std::size_t i = 0; i < candidate.ids.size(); ++i)
            std::cout << (i ? " + " : "") << pretrained.display_piece(candidate.ids[i]);
          std::cout << '\n';
        }
      });
    }
    return kExitOk;
  }
  const Tokenizer& tokenizer = *loaded.trained;
  const Segmenter& segmenter = tokenizer.segmenter();
  if (!(segmenter.capabilities() & kCapabilityNBest))
    throw Error("segmenter '" + segmenter.name() + "' does not support n-best segmentation");
  const MarkerStyle marker = tokenizer.pre_tokenizer().options().marker;
  for (const auto& text : texts) {
    tokenizer.for_each_word(text, [&](std::string_view word) {
      if (!ids_only) std::cout << show(std::string(word), marker) << '\n';
      for (const auto& candidate : segmenter.nbest(word, k)) {
        check_ids(candidate.ids, segmenter.vocabulary().size(), segmenter.name());
        if (ids_only) {
          print_ids(candidate.ids);
          continue;
        }
        print_score(candidate.score);
        for (std::size_t i = 0; i < candidate.ids.size(); ++i)
          std::cout << (i ? " + " : "") << show(segmenter.display_piece(candidate.ids[i]), marker);
        std::cout << '\n';
      }
    });
  }
  return kExitOk;
}

}  // namespace tokenlab::cli
