// The bpe-training assignment: BPE training written in a plugin, its merges compared
// step by step with the built-in bpe's on the textbook corpus and on a real text.
#include <memory>
#include <string>
#include <vector>

#include "grading/grading.hpp"
#include "tokenlab/training_observer.hpp"

namespace tokenlab::cli::grading {

namespace {

constexpr std::size_t kCorpusMerges = 300;  // merges compared on the real corpus

// Records the "pair" column of each traced merge.
class MergeRecorder final : public TrainingObserver {
 public:
  [[nodiscard]] bool trace() const override { return true; }
  void on_step(const TrainingStep& step) override {
    for (const auto& [name, value] : step.fields)
      if (name == "pair") pairs.push_back(value);
  }
  std::vector<std::string> pairs;
};

// Trains the submission and the built-in bpe on counts with `merges` merges beyond
// the alphabet and compares the pieces learned, step by step.
struct MergeComparison {
  std::vector<std::string> expected;  // the reference's pieces, in order
  std::vector<std::string> pairs;     // the reference's pairs ("e + s")
  std::vector<std::string> got;       // the submission's
};

MergeComparison compare_merges(const Grader& g, const WordCounts& counts, std::size_t merges,
                               std::unique_ptr<Segmenter>* student_out = nullptr,
                               std::unique_ptr<Segmenter>* reference_out = nullptr) {
  const std::size_t size = 1 + alphabet_size(counts) + merges;
  auto reference = g.built_ins.create("bpe");
  MergeRecorder recorder;
  reference->train(counts, reference_options(size), &recorder);
  auto student = g.student.create(g.name);
  student->train(counts, student_options(size), nullptr);
  MergeComparison c{learned_pieces(*reference), std::move(recorder.pairs),
                    learned_pieces(*student)};
  if (student_out) *student_out = std::move(student);
  if (reference_out) *reference_out = std::move(reference);
  return c;
}

std::string expected_step(const MergeComparison& c, std::size_t i) {
  return (i < c.pairs.size() ? c.pairs[i] + " -> " : std::string()) + quoted(c.expected[i]);
}

// The first 8 merges on the textbook corpus, step by step.
Item textbook_merges(const Grader& g) {
  Item merges{"textbook-merges",
              "the first 8 merges on the textbook corpus (low:5 lower:2 newest:6 widest:3 "
              "wider:2), each as the reference's: 2 points a step",
              16,
              {},
              {}};
  run_item(merges, [&](Report& r) {
    const MergeComparison c = compare_merges(g, textbook_counts(), 8);
    for (std::size_t i = 0; i < c.expected.size(); ++i) {
      if (i < c.got.size() && c.got[i] == c.expected[i]) continue;
      r.lose(2, "step " + std::to_string(i + 1) + ": expected " + expected_step(c, i) + ", got " +
                    (i < c.got.size() ? quoted(c.got[i]) : "no piece"));
    }
    if (c.got.size() > c.expected.size())
      r.note(std::to_string(c.got.size()) + " pieces learned where 8 were asked for");
  });
  return merges;
}

// Unseen words encoded with the textbook merges.
Item textbook_encoding(const Grader& g) {
  Item encoding{"textbook-encoding",
                "unseen words encoded with the textbook merges as the reference encodes them: 1 "
                "point a word",
                4,
                {},
                {}};
  run_item(encoding, [&](Report& r) {
    std::unique_ptr<Segmenter> student;
    std::unique_ptr<Segmenter> reference;
    compare_merges(g, textbook_counts(), 8, &student, &reference);
    for (const std::string word : {"lowest", "newer", "wides", "slowest"}) {
      const std::string w = word + std::string(kMarker);
      const std::string want = pieces_of(*reference, w);
      const std::string got = pieces_of(*student, w);
      if (got != want) r.lose(1, "'" + w + "': expected " + want + ", got " + got);
    }
  });
  return encoding;
}

// 300 merges on the real corpus, up to the first difference.
Item corpus_merges(const Grader& g) {
  Item corpus{"corpus-merges",
              "300 merges on " + g.corpus_label +
                  " as the reference's, step by step: 1 point per 10 steps matched before the "
                  "first difference",
              30,
              {},
              {}};
  run_item(corpus, [&](Report& r) {
    const MergeComparison c = compare_merges(g, text_counts(g.corpus_text), kCorpusMerges);
    std::size_t same = 0;
    while (same < c.expected.size() && same < c.got.size() && c.got[same] == c.expected[same])
      ++same;
    if (same == c.expected.size()) return;
    const int points = static_cast<int>(c.expected.size() / 10 - same / 10);
    r.lose(points, "step " + std::to_string(same + 1) + " is the first to differ: expected " +
                       expected_step(c, same) + ", got " +
                       (same < c.got.size() ? quoted(c.got[same]) : "no piece") + " (" +
                       std::to_string(same) + " of " + std::to_string(c.expected.size()) +
                       " steps matched)");
  });
  return corpus;
}

// Every distinct word of the real corpus, encoded after 300 merges.
Item corpus_encoding(const Grader& g) {
  Item words{"corpus-encoding",
             "every distinct word of " + g.corpus_label +
                 " encoded as the reference encodes it after 300 merges: points in proportion",
             20,
             {},
             {}};
  run_item(words, [&](Report& r) {
    const WordCounts counts = text_counts(g.corpus_text);
    std::unique_ptr<Segmenter> student;
    std::unique_ptr<Segmenter> reference;
    const MergeComparison c = compare_merges(g, counts, kCorpusMerges, &student, &reference);
    std::size_t differ = 0;
    std::string first;
    for (const auto& e : counts.entries()) {
      const std::string want = pieces_of(*reference, e.word);
      const std::string got = pieces_of(*student, e.word);
      if (got == want) continue;
      if (differ++ == 0) first = "'" + e.word + "': expected " + want + ", got " + got;
    }
    if (differ == 0) return;
    const std::size_t total = counts.size();
    const int points = static_cast<int>((differ * 20 + total - 1) / total);
    r.lose(points, std::to_string(differ) + " of " + std::to_string(total) +
                       " words encoded otherwise, the first " + first +
                       (c.got == c.expected ? "" : " (the merges differ too: fix those first)"));
  });
  return words;
}

// The size asked for, or the reference's when no pair is left.
Item vocabulary_size(const Grader& g) {
  Item sizes{"vocabulary-size",
             "the size asked for, or the reference's when no pair is left: 5 points a case",
             10,
             {},
             {}};
  run_item(sizes, [&](Report& r) {
    const WordCounts counts = text_counts(g.corpus_text);
    const std::size_t asked = 1 + alphabet_size(counts) + 100;
    auto student = g.student.create(g.name);
    student->train(counts, student_options(asked), nullptr);
    if (student->vocabulary().size() != asked)
      r.lose(5, g.corpus_label + " at vocab_size " + std::to_string(asked) + ": " +
                    std::to_string(student->vocabulary().size()) + " entries");
    const WordCounts textbook = textbook_counts();
    auto reference = g.built_ins.create("bpe");
    reference->train(textbook, reference_options(1000), nullptr);
    auto exhausted = g.student.create(g.name);
    exhausted->train(textbook, student_options(1000), nullptr);
    if (exhausted->vocabulary().size() != reference->vocabulary().size())
      r.lose(5, "the textbook corpus at vocab_size 1000: " +
                    std::to_string(exhausted->vocabulary().size()) +
                    " entries, the reference stops at " +
                    std::to_string(reference->vocabulary().size()) +
                    " (when every word is one piece, no pair is left to merge)");
  });
  return sizes;
}

}  // namespace

std::vector<Item> grade_bpe_training(const Grader& g) {
  std::vector<Item> items;
  items.push_back(conformance_item(g));
  items.push_back(textbook_merges(g));
  items.push_back(textbook_encoding(g));
  items.push_back(corpus_merges(g));
  items.push_back(corpus_encoding(g));
  items.push_back(vocabulary_size(g));
  return items;
}

}  // namespace tokenlab::cli::grading
