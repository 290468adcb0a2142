// The hash counting tables place words by (framework/core/include/tokenlab/word_hash.hpp).
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <random>
#include <set>
#include <string>
#include <string_view>

#include <sys/mman.h>
#include <unistd.h>

#include "tokenlab/word_hash.hpp"

using tokenlab::word_hash;
using tokenlab::word_hash_16_readable;

namespace {

// Two pages, the second unreadable: a word ending where the first does makes
// any read past its end a fault, in every build, not only a sanitized one.
class GuardedPage {
 public:
  GuardedPage() : size_(static_cast<std::size_t>(sysconf(_SC_PAGESIZE))) {
    void* p = mmap(nullptr, 2 * size_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    REQUIRE(p != MAP_FAILED);
    base_ = static_cast<char*>(p);
    REQUIRE(mprotect(base_ + size_, size_, PROT_NONE) == 0);
  }
  ~GuardedPage() { munmap(base_, 2 * size_); }
  GuardedPage(const GuardedPage&) = delete;
  GuardedPage& operator=(const GuardedPage&) = delete;
  /// word copied so that its last byte is the readable page's last.
  const char* place(const std::string& word) {
    char* at = base_ + size_ - word.size();
    std::memcpy(at, word.data(), word.size());
    return at;
  }

 private:
  std::size_t size_;
  char* base_ = nullptr;
};

}  // namespace

TEST_CASE("a short word's two numbers are its bytes zero-padded to 16, read from no further",
          "[word_hash]") {
  GuardedPage page;
  std::mt19937_64 random(20261207);
  for (std::size_t n = 0; n <= 16; ++n) {
    for (int trial = 0; trial < 50; ++trial) {
      std::string word(n, '\0');
      for (char& c : word) c = static_cast<char>(random());
      const char* at = page.place(word);
      std::uint64_t low = 1;
      std::uint64_t high = 1;
      tokenlab::detail::short_word_parts(at, n, low, high);
      char padded[16] = {};
      std::memcpy(padded, word.data(), n);
      CHECK(low == tokenlab::detail::load_u64(padded));
      CHECK(high == tokenlab::detail::load_u64(padded + 8));
      CHECK(word_hash({at, n}) == word_hash(word));  // the whole hash reads no further either
    }
  }
}

TEST_CASE("a word hashes the same whatever follows it, read in two loads or not", "[word_hash]") {
  std::mt19937_64 random(7);
  for (std::size_t n = 0; n <= 70; ++n) {
    for (int trial = 0; trial < 40; ++trial) {
      std::string text(n + 16, '\0');
      for (char& c : text) c = static_cast<char>(random());
      const std::string_view word(text.data(), n);
      const std::string alone(word);  // what follows it differs from text's
      const std::uint64_t seed = trial % 3;
      const std::uint64_t expected = word_hash(alone, seed);
      CHECK(word_hash(word, seed) == expected);
      CHECK(word_hash_16_readable(word, seed) == expected);
      text[n] = static_cast<char>(text[n] ^ 0x5a);  // what follows changes; the hash does not
      CHECK(word_hash_16_readable(word, seed) == expected);
    }
  }
}

TEST_CASE("words that pad to the same bytes, or differ only in the seed, hash apart",
          "[word_hash]") {
  // "", "\0", "\0\0" ... pad to the same 16 bytes: the length keeps them apart.
  std::set<std::uint64_t> hashes;
  for (std::size_t n = 0; n <= 32; ++n) hashes.insert(word_hash(std::string(n, '\0')));
  CHECK(hashes.size() == 33);
  CHECK(word_hash("the", 0) != word_hash("the", 1));
  CHECK(word_hash("the") != word_hash("The"));
  CHECK(word_hash("abcdefghijklmnopq") != word_hash("abcdefghijklmnopr"));  // past 16 bytes
}
