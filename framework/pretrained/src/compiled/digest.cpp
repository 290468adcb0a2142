#include <bit>
#include <cstdio>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#endif

#include "compiled/compiled_file.hpp"

namespace tokenlab::compiled {

namespace {

// XXH3's accumulation (Yann Collet's xxHash, 2019), not its exact output: eight
// 64-bit lanes, each adding per 8 bytes the product of the two 32-bit halves of
// (data ^ key) and the neighbouring lane's data, so that no input bit is lost
// when a product is zero; every 8 stripes of 64 bytes the lanes are scrambled
// (xor-shift, key, multiply). One SSE2 multiply covers 16 bytes, where the
// four-lane xxHash64 round this replaced took a 64-bit multiply chain each 8;
// from memory both run at memory's speed (docs/performance.md, sixteenth
// round); over 64 KiB in the cache this one ran 8.8 to 10.1 GB/s, that one
// 5.5 to 6.1.
constexpr std::size_t kStripe = 64;
constexpr std::size_t kStripesPerBlock = 8;
constexpr std::uint32_t kPrime32 = 0x9E3779B1u;
constexpr std::uint64_t kPrime64a = 0x9E3779B185EBCA87ull;
constexpr std::uint64_t kPrime64b = 0xC2B2AE3D27D4EB4Full;
constexpr std::uint64_t kPrime64c = 0x165667B19E3779F9ull;

// 192 bytes of key: stripe s of a block reads 64 of them from byte 8 * s, the
// scramble the 64 from byte 128.
struct Secret {
  alignas(16) unsigned char bytes[192];
  constexpr Secret() : bytes{} {
    std::uint64_t x = 0x243F6A8885A308D3ull;  // pi's fraction: splitmix64 from it
    for (std::size_t i = 0; i < sizeof bytes; i += 8) {
      x += 0x9E3779B97F4A7C15ull;
      std::uint64_t z = x;
      z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
      z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
      z ^= z >> 31;
      for (std::size_t b = 0; b < 8; ++b) bytes[i + b] = static_cast<unsigned char>(z >> (8 * b));
    }
  }
};
constexpr Secret kSecret;
constexpr std::size_t kScrambleKey = 128;
constexpr std::size_t kTailKey = 7;  // an offset no block's stripe uses

__extension__ using Uint128 = unsigned __int128;  // GCC's and Clang's, on 64-bit targets

std::uint64_t load64(const unsigned char* p) noexcept {
  std::uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

std::uint64_t avalanche(std::uint64_t h) noexcept {
  h ^= h >> 33;
  h *= kPrime64b;
  h ^= h >> 29;
  h *= kPrime64c;
  return h ^ (h >> 32);
}

// The arithmetic a lane at a time: the definition the vector paths below must
// agree with bit for bit (one cache directory may serve machines with and
// without them).
struct ScalarLanes {
  std::uint64_t v[8];
  ScalarLanes() {
    for (int i = 0; i < 4; ++i) {
      v[2 * i] = kPrime64a * (2 * i + 1);
      v[2 * i + 1] = kPrime64b * (2 * i + 2);
    }
  }
  void accumulate(const unsigned char* data, const unsigned char* key) noexcept {
    std::uint64_t d[8];
    for (int i = 0; i < 8; ++i) d[i] = load64(data + 8 * i);
    for (int i = 0; i < 8; ++i) {
      const std::uint64_t dk = d[i] ^ load64(key + 8 * i);
      v[i] += (dk & 0xFFFFFFFFu) * (dk >> 32) + d[i ^ 1];
    }
  }
  void scramble(const unsigned char* key) noexcept {
    for (int i = 0; i < 8; ++i) {
      const std::uint64_t dk = (v[i] ^ (v[i] >> 47)) ^ load64(key + 8 * i);
      v[i] = (dk & 0xFFFFFFFFu) * kPrime32 + (((dk >> 32) * kPrime32) << 32);
    }
  }
  void store(std::uint64_t out[8]) const noexcept { std::memcpy(out, v, sizeof v); }
};

#if defined(__SSE2__)
struct Lanes {
  __m128i v[4];
  Lanes() {
    for (int i = 0; i < 4; ++i)
      v[i] = _mm_set_epi64x(static_cast<long long>(kPrime64b * (2 * i + 2)),
                            static_cast<long long>(kPrime64a * (2 * i + 1)));
  }
  void accumulate(const unsigned char* data, const unsigned char* key) noexcept {
    for (int i = 0; i < 4; ++i) {
      const __m128i d = _mm_loadu_si128(reinterpret_cast<const __m128i*>(data + 16 * i));
      const __m128i k = _mm_loadu_si128(reinterpret_cast<const __m128i*>(key + 16 * i));
      const __m128i dk = _mm_xor_si128(d, k);
      const __m128i product = _mm_mul_epu32(dk, _mm_shuffle_epi32(dk, _MM_SHUFFLE(0, 3, 0, 1)));
      const __m128i swapped = _mm_shuffle_epi32(d, _MM_SHUFFLE(1, 0, 3, 2));
      v[i] = _mm_add_epi64(v[i], _mm_add_epi64(product, swapped));
    }
  }
  void scramble(const unsigned char* key) noexcept {
    const __m128i prime = _mm_set1_epi32(static_cast<int>(kPrime32));
    for (int i = 0; i < 4; ++i) {
      const __m128i mixed = _mm_xor_si128(v[i], _mm_srli_epi64(v[i], 47));
      const __m128i k = _mm_loadu_si128(reinterpret_cast<const __m128i*>(key + 16 * i));
      const __m128i dk = _mm_xor_si128(mixed, k);
      const __m128i low = _mm_mul_epu32(dk, prime);
      const __m128i high = _mm_mul_epu32(_mm_shuffle_epi32(dk, _MM_SHUFFLE(0, 3, 0, 1)), prime);
      v[i] = _mm_add_epi64(low, _mm_slli_epi64(high, 32));
    }
  }
  void store(std::uint64_t out[8]) const noexcept {
    for (int i = 0; i < 4; ++i) _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 2 * i), v[i]);
  }
};
#else
using Lanes = ScalarLanes;
#endif

// The lanes over every whole stripe of bytes, then the zero-padded tail.
template <class L>
void accumulate_all(const unsigned char* p, std::size_t n, std::uint64_t acc[8]) noexcept {
  L lanes;
  std::size_t at = 0;
  for (std::size_t stripe = 0; at + kStripe <= n; at += kStripe) {
    lanes.accumulate(p + at, kSecret.bytes + 8 * stripe);
    if (++stripe == kStripesPerBlock) {
      lanes.scramble(kSecret.bytes + kScrambleKey);
      stripe = 0;
    }
  }
  // The last bytes (0 to 63) zero-padded: the length below tells "x" from "x\0".
  unsigned char tail[kStripe] = {};
  if (n > at) std::memcpy(tail, p + at, n - at);  // (an empty view's data may be null)
  lanes.accumulate(tail, kSecret.bytes + 8 * kTailKey);
  lanes.store(acc);
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define TOKENLAB_DIGEST_AVX2 1
// The SSE2 lanes two registers at a time: the same products and sums, twice
// as many a step (entries are checksummed on every load: Gemma 3's 28 MB took
// an eighth of its load from a stamp at SSE2's 10 GB/s). _mm256_shuffle_epi32
// shuffles within each 128-bit half, so lane i's neighbour is still i ^ 1.
// One function, so that everything in it is compiled for AVX2: accumulate_all's
// loop is written out again because GCC will not inline AVX2 lane methods into
// a template instantiated for the default target ("target specific option
// mismatch"), even one that is itself inlined into an AVX2 function.
__attribute__((target("avx2"))) void accumulate_all_avx2(const unsigned char* p, std::size_t n,
                                                         std::uint64_t acc[8]) noexcept {
  __m256i v[2];
  for (int i = 0; i < 2; ++i)
    v[i] = _mm256_set_epi64x(static_cast<long long>(kPrime64b * (4 * i + 4)),
                             static_cast<long long>(kPrime64a * (4 * i + 3)),
                             static_cast<long long>(kPrime64b * (4 * i + 2)),
                             static_cast<long long>(kPrime64a * (4 * i + 1)));
  const __m256i prime = _mm256_set1_epi32(static_cast<int>(kPrime32));
  unsigned char tail[kStripe] = {};
  std::size_t at = 0;
  std::size_t stripe = 0;
  for (bool last = false; !last; at += kStripe) {
    const unsigned char* data = p + at;
    const unsigned char* key = kSecret.bytes + 8 * stripe;
    if (at + kStripe > n) {  // the zero-padded tail, with its own key
      if (n > at) std::memcpy(tail, p + at, n - at);
      data = tail;
      key = kSecret.bytes + 8 * kTailKey;
      last = true;
    }
    for (int i = 0; i < 2; ++i) {
      const __m256i d = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(data + 32 * i));
      const __m256i k = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(key + 32 * i));
      const __m256i dk = _mm256_xor_si256(d, k);
      const __m256i product =
          _mm256_mul_epu32(dk, _mm256_shuffle_epi32(dk, _MM_SHUFFLE(0, 3, 0, 1)));
      const __m256i swapped = _mm256_shuffle_epi32(d, _MM_SHUFFLE(1, 0, 3, 2));
      v[i] = _mm256_add_epi64(v[i], _mm256_add_epi64(product, swapped));
    }
    if (!last && ++stripe == kStripesPerBlock) {
      for (int i = 0; i < 2; ++i) {
        const __m256i mixed = _mm256_xor_si256(v[i], _mm256_srli_epi64(v[i], 47));
        const __m256i k = _mm256_loadu_si256(
            reinterpret_cast<const __m256i*>(kSecret.bytes + kScrambleKey + 32 * i));
        const __m256i dk = _mm256_xor_si256(mixed, k);
        const __m256i low = _mm256_mul_epu32(dk, prime);
        const __m256i high =
            _mm256_mul_epu32(_mm256_shuffle_epi32(dk, _MM_SHUFFLE(0, 3, 0, 1)), prime);
        v[i] = _mm256_add_epi64(low, _mm256_slli_epi64(high, 32));
      }
      stripe = 0;
    }
  }
  for (int i = 0; i < 2; ++i) _mm256_storeu_si256(reinterpret_cast<__m256i*>(acc + 4 * i), v[i]);
}

// cpuid itself, once, when first asked (as utf8.cpp does): __builtin_cpu_supports
// brings libgcc's CPU probe in as a constructor that runs in every process,
// a dozen cpuid instructions, each a trap to the hypervisor on a virtual machine.
bool has_avx2() noexcept {
  static const bool avx2 = [] {
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    if (__get_cpuid(1, &eax, &ebx, &ecx, &edx) == 0 || (ecx & bit_OSXSAVE) == 0 ||
        (ecx & bit_AVX) == 0)
      return false;
    unsigned xcr0_low = 0, xcr0_high = 0;  // the OS saves the YMM registers: XCR0 bits 1, 2
    __asm__("xgetbv" : "=a"(xcr0_low), "=d"(xcr0_high) : "c"(0));
    if ((xcr0_low & 6u) != 6u) return false;
    return __get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) != 0 && (ebx & bit_AVX2) != 0;
  }();
  return avx2;
}
#endif

Digest finish_digest(const std::uint64_t acc[8], std::size_t n) noexcept {
  const std::uint64_t length = n * kPrime64a;
  Digest d{length, ~length};
  for (int i = 0; i < 8; i += 2) {
    // Each pair of lanes folded by a 64 x 64 -> 128-bit product, as XXH3's merge.
    const Uint128 product = static_cast<Uint128>(acc[i] ^ load64(kSecret.bytes + 8 * i)) *
                            (acc[i + 1] ^ load64(kSecret.bytes + 8 * i + 8));
    d.low += static_cast<std::uint64_t>(product) ^ static_cast<std::uint64_t>(product >> 64);
    d.high = std::rotl(d.high, 27) + (acc[i] ^ std::rotl(acc[i + 1], 31));
  }
  d.low = avalanche(d.low);
  d.high = avalanche(d.high ^ d.low);
  return d;
}

}  // namespace

std::string Digest::hex() const {
  char text[33];
  std::snprintf(text, sizeof text, "%016llx%016llx", static_cast<unsigned long long>(high),
                static_cast<unsigned long long>(low));
  return text;
}

Digest digest_of(std::string_view bytes) noexcept {
  // SSE2 falls back to the lane-by-lane path on a target without it.
  return digest_by_path(
      bytes, digest_path_available(DigestPath::avx2) ? DigestPath::avx2 : DigestPath::sse2);
}

bool digest_path_available(DigestPath path) noexcept {
  switch (path) {
    case DigestPath::lane_by_lane:
      return true;
    case DigestPath::sse2:
#if defined(__SSE2__)
      return true;
#else
      return false;
#endif
    case DigestPath::avx2:
#if defined(TOKENLAB_DIGEST_AVX2)
      return has_avx2();
#else
      return false;
#endif
  }
  return false;
}

Digest digest_by_path(std::string_view bytes, DigestPath path) noexcept {
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  std::uint64_t acc[8];
  if (path == DigestPath::avx2 && digest_path_available(path)) {
#if defined(TOKENLAB_DIGEST_AVX2)
    accumulate_all_avx2(p, bytes.size(), acc);
#endif
  } else if (path == DigestPath::sse2 && digest_path_available(path)) {
    accumulate_all<Lanes>(p, bytes.size(), acc);
  } else {
    accumulate_all<ScalarLanes>(p, bytes.size(), acc);
  }
  return finish_digest(acc, bytes.size());
}

}  // namespace tokenlab::compiled
