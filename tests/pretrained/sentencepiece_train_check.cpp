// A developer tool, not a test: trains a SentencePiece model like another with
// train_sentencepiece_like, and compares two .model files' pieces. The
// reference test tests/references/spm_training.sh runs it against spm_train.
//
//   tokenlab_sentencepiece_train_check train LIKE.model OUT.model VOCAB CORPUS...
//       [--flag key=value]... [--threads N]      (prints the seconds taken)
//   tokenlab_sentencepiece_train_check compare A.model B.model
//       prints how many ids hold the same piece, score and type, the pieces the
//       two share, and the first difference; exit 0 if every id agrees.
#include <chrono>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>

#include "spm_pieces.hpp"
#include "tokenlab/error.hpp"
#include "tokenlab/pretrained/sentencepiece_trainer.hpp"

namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw tokenlab::Error(path + ": cannot open");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

int train(int argc, char** argv) {
  tokenlab::SentencePieceTrainingOverrides overrides;
  overrides.vocab_size = std::stoi(argv[4]);
  std::vector<std::string> corpus;
  for (int i = 5; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--flag" && i + 1 < argc) {
      const std::string kv = argv[++i];
      const auto eq = kv.find('=');
      overrides.flags[kv.substr(0, eq)] = eq == std::string::npos ? "" : kv.substr(eq + 1);
    } else if (a == "--threads" && i + 1 < argc) {
      overrides.threads = static_cast<unsigned>(std::stoul(argv[++i]));
    } else {
      corpus.push_back(a);
    }
  }
  const auto start = std::chrono::steady_clock::now();
  const std::string model = tokenlab::train_sentencepiece_like(
      read_file(argv[2]), corpus, overrides, [](const std::string& m) { std::cerr << m << '\n'; });
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  std::ofstream(argv[3], std::ios::binary) << model;
  std::cout << "seconds " << took.count() << '\n';
  return 0;
}

int compare(const std::string& a_path, const std::string& b_path) {
  const auto a = tokenlab::test::spm_pieces(read_file(a_path));
  const auto b = tokenlab::test::spm_pieces(read_file(b_path));
  std::size_t same = 0, first = a.size() + b.size();
  for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
    if (a[i] == b[i]) {
      ++same;
    } else if (first > i) {
      first = i;
    }
  }
  std::set<std::string> in_a;
  for (const auto& p : a) in_a.insert(p.piece);
  std::size_t shared = 0;
  for (const auto& p : b) shared += in_a.count(p.piece);
  std::cout << "identical ids " << same << " of " << a.size() << " / " << b.size()
            << "; shared pieces " << shared << '\n';
  if (first < std::min(a.size(), b.size()))
    std::cout << "first difference at id " << first << ": " << a[first].piece << " "
              << a[first].score << " " << a[first].type << " vs " << b[first].piece << " "
              << b[first].score << " " << b[first].type << '\n';
  return same == a.size() && a.size() == b.size() ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const std::string mode = argc > 1 ? argv[1] : "";
    if (mode == "train" && argc >= 6) return train(argc, argv);
    if (mode == "compare" && argc == 4) return compare(argv[2], argv[3]);
    std::cerr << "usage: " << argv[0]
              << " train LIKE.model OUT.model VOCAB CORPUS... [--flag k=v]... [--threads N]\n"
              << "       " << argv[0] << " compare A.model B.model\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << '\n';
    return 1;
  }
}
