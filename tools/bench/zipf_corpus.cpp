// A synthetic corpus for scaling measurements: words drawn from a Zipf law over
// a vocabulary that grows by Heaps' law, streamed to stdout, the same bytes for
// the same seed, so 1 to 10 GB corpora are made on demand and never stored.
//
//   tokenlab_zipf_corpus --bytes 10G [--seed 1] [--zipf 1.07] [--heaps-k 30] [--heaps-beta 0.6]
//
// After n words the vocabulary holds K * n^beta distinct words (Heaps); a word's
// rank r in it is drawn with probability proportional to 1 / r^s (Zipf, by the
// inverse of the continuous distribution). Rank r is spelled as r in bijective
// base 20 over consonant-vowel syllables, so frequent words are short, as in
// real text. Lines hold 8 to 19 words; the output ends with whole lines, up to
// 1 MiB past --bytes.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

std::uint64_t splitmix(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

double unit(std::uint64_t& state) {
  return static_cast<double>(splitmix(state) >> 11) * 0x1.0p-53;
}

void spell(std::uint64_t rank, std::string& out) {
  static const char* const kSyllables[20] = {"ka", "to", "ri", "ne", "su", "mo", "la",
                                             "pi", "de", "go", "ha", "ju", "be", "fa",
                                             "wi", "zo", "ce", "vu", "ya", "xo"};
  std::uint64_t n = rank + 1;  // bijective base 20: every rank its own spelling
  while (n > 0) {
    --n;
    out += kSyllables[n % 20];
    n /= 20;
  }
}

std::uint64_t parse_size(const char* text) {
  char* end = nullptr;
  const double value = std::strtod(text, &end);
  double scale = 1;
  if (*end == 'K' || *end == 'k') scale = 1024.0;
  if (*end == 'M' || *end == 'm') scale = 1024.0 * 1024;
  if (*end == 'G' || *end == 'g') scale = 1024.0 * 1024 * 1024;
  if (end == text || value <= 0 || (*end != '\0' && end[1] != '\0')) {
    std::fprintf(stderr, "zipf-corpus: bad size '%s' (as 100M or 10G)\n", text);
    std::exit(2);
  }
  return static_cast<std::uint64_t>(value * scale);
}

}  // namespace

int main(int argc, char** argv) {
  std::uint64_t bytes = 0;
  std::uint64_t seed = 1;
  double s = 1.07;
  double heaps_k = 30.0;
  double heaps_beta = 0.6;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--bytes") == 0)
      bytes = parse_size(argv[i + 1]);
    else if (std::strcmp(argv[i], "--seed") == 0)
      seed = std::strtoull(argv[i + 1], nullptr, 10);
    else if (std::strcmp(argv[i], "--zipf") == 0)
      s = std::strtod(argv[i + 1], nullptr);
    else if (std::strcmp(argv[i], "--heaps-k") == 0)
      heaps_k = std::strtod(argv[i + 1], nullptr);
    else if (std::strcmp(argv[i], "--heaps-beta") == 0)
      heaps_beta = std::strtod(argv[i + 1], nullptr);
    else {
      std::fprintf(stderr, "zipf-corpus: unknown option %s\n", argv[i]);
      return 2;
    }
  }
  if (bytes == 0 || s <= 1.0 || heaps_k <= 0 || heaps_beta <= 0 || heaps_beta >= 1) {
    std::fprintf(stderr,
                 "usage: tokenlab_zipf_corpus --bytes SIZE [--seed N] [--zipf S>1] "
                 "[--heaps-k K] [--heaps-beta 0<B<1]\n");
    return 2;
  }
  std::uint64_t state = seed;
  std::string buffer;
  buffer.reserve(1 << 20);
  std::uint64_t written = 0;
  std::uint64_t words = 0;
  double vocabulary = heaps_k;
  double top = std::pow(vocabulary, 1.0 - s);  // V^(1-s), refreshed as V grows
  while (written < bytes) {
    const auto in_line = 8 + splitmix(state) % 12;
    for (std::uint64_t w = 0; w < in_line; ++w) {
      // Inverse CDF of the continuous Zipf law on [1, V + 1).
      const double u = unit(state);
      const double r = std::pow(1.0 + u * (top - 1.0), 1.0 / (1.0 - s));
      const auto rank =
          std::min(static_cast<std::uint64_t>(r) - 1, static_cast<std::uint64_t>(vocabulary) - 1);
      if (w > 0) buffer += ' ';
      spell(rank, buffer);
      if (++words % 1024 == 0) {
        vocabulary = heaps_k * std::pow(static_cast<double>(words), heaps_beta);
        top = std::pow(vocabulary + 1.0, 1.0 - s);
      }
    }
    buffer += '\n';
    if (buffer.size() >= (1 << 20)) {
      // Whole lines only: the corpus ends at the first line break past --bytes.
      if (std::fwrite(buffer.data(), 1, buffer.size(), stdout) != buffer.size()) return 1;
      written += buffer.size();
      buffer.clear();
    }
  }
  return 0;
}
