#include "tokenlab/utf8.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#include <immintrin.h>
#endif

#include <array>
#include <cstdint>
#include <cstring>

namespace tokenlab::utf8 {

std::size_t sequence_length(std::string_view s, std::size_t pos) noexcept {
  return decode_sequence(s, pos).length;
}

namespace {

// Well-formedness (Unicode's table 3-7) as a DFA in the shift form: each byte
// has a 64-bit row holding, for every state, the next state's bit offset in 6
// bits, so a step is state = row[byte] >> state. The row's load does not wait
// on the state, so the dependency chain is one shift a byte, where decoding each
// sequence (the loop below) branched on its length: validating a Hindi line took
// a tenth of encoding it with a SentencePiece unigram model.
enum DfaState : unsigned {
  kAccept = 0,
  kTail1 = 6,     // one continuation byte left
  kTail2 = 12,    // two
  kTail3 = 18,    // three
  kAfterE0 = 24,  // A0..BF, then one (no overlong 3-byte form)
  kAfterED = 30,  // 80..9F, then one (no surrogate)
  kAfterF0 = 36,  // 90..BF, then two (no overlong 4-byte form)
  kAfterF4 = 42,  // 80..8F, then two (nothing past U+10FFFF)
  kReject = 48,
};

constexpr std::array<std::uint64_t, 256> make_dfa_rows() {
  std::array<std::uint64_t, 256> rows{};
  const unsigned states[] = {kAccept,  kTail1,   kTail2,   kTail3, kAfterE0,
                             kAfterED, kAfterF0, kAfterF4, kReject};
  for (unsigned b = 0; b < 256; ++b) {
    std::uint64_t row = 0;
    for (const unsigned from : states) {
      unsigned to = kReject;
      const bool tail = b >= 0x80 && b <= 0xBF;
      switch (from) {
        case kAccept:
          if (b < 0x80)
            to = kAccept;
          else if (b >= 0xC2 && b <= 0xDF)
            to = kTail1;
          else if (b == 0xE0)
            to = kAfterE0;
          else if (b == 0xED)
            to = kAfterED;
          else if (b >= 0xE1 && b <= 0xEF)
            to = kTail2;
          else if (b == 0xF0)
            to = kAfterF0;
          else if (b >= 0xF1 && b <= 0xF3)
            to = kTail3;
          else if (b == 0xF4)
            to = kAfterF4;
          break;
        case kTail1:
          to = tail ? kAccept : kReject;
          break;
        case kTail2:
          to = tail ? kTail1 : kReject;
          break;
        case kTail3:
          to = tail ? kTail2 : kReject;
          break;
        case kAfterE0:
          to = b >= 0xA0 && b <= 0xBF ? kTail1 : kReject;
          break;
        case kAfterED:
          to = b >= 0x80 && b <= 0x9F ? kTail1 : kReject;
          break;
        case kAfterF0:
          to = b >= 0x90 && b <= 0xBF ? kTail2 : kReject;
          break;
        case kAfterF4:
          to = b >= 0x80 && b <= 0x8F ? kTail2 : kReject;
          break;
        default:
          break;
      }
      row |= std::uint64_t{to} << from;
    }
    rows[b] = row;
  }
  return rows;
}

constexpr std::array<std::uint64_t, 256> kDfaRows = make_dfa_rows();

// True when s is well-formed UTF-8.
bool well_formed(std::string_view s) noexcept {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const std::size_t n = s.size();
  std::uint64_t state = kAccept;
  std::size_t i = 0;
  while (i < n) {
    // Between sequences, skip ASCII sixteen bytes at a time.
    if (state == kAccept) i += ascii_prefix_length(s.substr(i));
    // Then 32 bytes (or what is left) through the DFA without a branch a byte;
    // the reject state absorbs, so looking once after the block is enough.
    const std::size_t stop = n - i < 32 ? n : i + 32;
    for (; i < stop; ++i) state = kDfaRows[p[i]] >> (state & 63);
    state &= 63;
    if (state == kReject) return false;
  }
  return state == kAccept;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define TOKENLAB_UTF8_SSSE3 1

// well_formed sixteen bytes at a time: Keiser and Lemire's lookup algorithm
// ("Validating UTF-8 in less than one instruction per byte", 2021; simdjson's
// and simdutf's validator). Each byte and the one before it are classified by
// three table lookups on their nibbles, whose AND is nonzero exactly at a
// two-byte pattern that table 3-7 forbids (too short, too long, overlong,
// surrogate, past U+10FFFF, two continuations where none may be); a
// continuation byte that must be the third or fourth of a sequence is checked
// against the lead two or three bytes back. SSSE3 for the byte shuffle, which
// baseline x86-64 lacks: chosen at run time by cpuid (dispatch below). On Hindi, the
// DFA's chain of a shift a byte was 6% of encoding with a SentencePiece
// unigram model.
[[gnu::target("ssse3")]] bool well_formed_ssse3(std::string_view s) noexcept {
  constexpr char kTooShort = 1 << 0;                     // a lead, then no continuation
  constexpr char kTooLong = 1 << 1;                      // ASCII, then a continuation
  constexpr char kOverlong3 = 1 << 2;                    // E0 80-9F
  constexpr char kTooLarge = 1 << 3;                     // F4 90-BF, F5-FF ...
  constexpr char kSurrogate = 1 << 4;                    // ED A0-BF
  constexpr char kOverlong2 = 1 << 5;                    // C0-C1
  constexpr char kTooLarge1000 = 1 << 6;                 // F5-FF 80-8F
  constexpr char kOverlong4 = 1 << 6;                    // F0 80-8F
  constexpr char kTwoConts = static_cast<char>(1 << 7);  // a continuation after a continuation
  constexpr char kCarry = kTooShort | kTooLong | kTwoConts;
  // By the previous byte's high nibble, its low nibble, and this byte's high nibble.
  const __m128i first_high = _mm_setr_epi8(
      kTooLong, kTooLong, kTooLong, kTooLong, kTooLong, kTooLong, kTooLong, kTooLong, kTwoConts,
      kTwoConts, kTwoConts, kTwoConts, kTooShort | kOverlong2, kTooShort,
      kTooShort | kOverlong3 | kSurrogate, kTooShort | kTooLarge | kTooLarge1000 | kOverlong4);
  constexpr char kLarge = kCarry | kTooLarge | kTooLarge1000;
  const __m128i first_low =
      _mm_setr_epi8(kCarry | kOverlong3 | kOverlong2 | kOverlong4, kCarry | kOverlong2, kCarry,
                    kCarry, kCarry | kTooLarge, kLarge, kLarge, kLarge, kLarge, kLarge, kLarge,
                    kLarge, kLarge, kLarge | kSurrogate, kLarge, kLarge);
  const __m128i second_high = _mm_setr_epi8(
      kTooShort, kTooShort, kTooShort, kTooShort, kTooShort, kTooShort, kTooShort, kTooShort,
      kTooLong | kOverlong2 | kTwoConts | kOverlong3 | kTooLarge1000 | kOverlong4,
      kTooLong | kOverlong2 | kTwoConts | kOverlong3 | kTooLarge,
      kTooLong | kOverlong2 | kTwoConts | kSurrogate | kTooLarge,
      kTooLong | kOverlong2 | kTwoConts | kSurrogate | kTooLarge, kTooShort, kTooShort, kTooShort,
      kTooShort);
  const __m128i nibble = _mm_set1_epi8(0x0F);
  // A block whose last bytes begin a sequence that needs more: the next block
  // must continue it (or, at the end, the text is cut short).
  const __m128i incomplete_above =
      _mm_setr_epi8(-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, static_cast<char>(0xF0 - 1),
                    static_cast<char>(0xE0 - 1), static_cast<char>(0xC0 - 1));
  __m128i previous = _mm_setzero_si128();
  __m128i error = _mm_setzero_si128();
  __m128i incomplete = _mm_setzero_si128();
  const std::size_t n = s.size();
  for (std::size_t i = 0; i < n; i += 16) {
    __m128i input;
    if (n - i >= 16) {
      input = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s.data() + i));
    } else {  // the rest, then zeros (ASCII): a sequence cut short is too short
      alignas(16) char tail[16] = {};
      std::memcpy(tail, s.data() + i, n - i);
      input = _mm_load_si128(reinterpret_cast<const __m128i*>(tail));
    }
    if (_mm_movemask_epi8(input) == 0) {  // ASCII: nothing may be pending
      error = _mm_or_si128(error, incomplete);
      incomplete = _mm_setzero_si128();
    } else {
      const __m128i prev1 = _mm_alignr_epi8(input, previous, 15);
      const __m128i special = _mm_and_si128(
          _mm_and_si128(
              _mm_shuffle_epi8(first_high, _mm_and_si128(_mm_srli_epi16(prev1, 4), nibble)),
              _mm_shuffle_epi8(first_low, _mm_and_si128(prev1, nibble))),
          _mm_shuffle_epi8(second_high, _mm_and_si128(_mm_srli_epi16(input, 4), nibble)));
      const __m128i third = _mm_subs_epu8(_mm_alignr_epi8(input, previous, 14),
                                          _mm_set1_epi8(static_cast<char>(0xE0 - 0x80)));
      const __m128i fourth = _mm_subs_epu8(_mm_alignr_epi8(input, previous, 13),
                                           _mm_set1_epi8(static_cast<char>(0xF0 - 0x80)));
      const __m128i must_continue =
          _mm_and_si128(_mm_or_si128(third, fourth), _mm_set1_epi8(static_cast<char>(0x80)));
      error = _mm_or_si128(error, _mm_xor_si128(must_continue, special));
      incomplete = _mm_subs_epu8(input, incomplete_above);
    }
    previous = input;
  }
  error = _mm_or_si128(error, incomplete);
  return _mm_movemask_epi8(_mm_cmpeq_epi8(error, _mm_setzero_si128())) == 0xFFFF;
}
#endif

// Where the first ill-formed sequence starts: decode_sequence's own verdict,
// sequence by sequence (only once well_formed has said there is one).
std::size_t first_invalid(std::string_view s) noexcept {
  std::size_t i = 0;
  while (i < s.size()) {
    const std::size_t len = decode_sequence(s, i).length;
    if (len == 0) return i;
    i += len;
  }
  return s.size();  // not reached: well_formed refused s
}

}  // namespace

namespace detail {

bool well_formed_portable(std::string_view s) noexcept {
  return well_formed(s);
}

bool well_formed_vector(std::string_view s) noexcept {
#if defined(TOKENLAB_UTF8_SSSE3)
  // cpuid itself, once: __builtin_cpu_supports brought libgcc's CPU probe in
  // as a constructor that ran in every process at start-up.
  static const bool has_ssse3 = [] {
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    return __get_cpuid(1, &eax, &ebx, &ecx, &edx) != 0 && (ecx & bit_SSSE3) != 0;
  }();
  if (has_ssse3) return well_formed_ssse3(s);
#endif
  return well_formed(s);
}

}  // namespace detail

std::optional<std::size_t> find_invalid(std::string_view s) noexcept {
  if (detail::well_formed_vector(s)) return std::nullopt;
  return first_invalid(s);
}

namespace {

// Bytes of the ill-formed sequence at s[i] that get one U+FFFD: the longest prefix
// of a well-formed sequence ("maximal subpart", Unicode 3.9 / W3C), at least 1.
std::size_t maximal_subpart(std::string_view s, std::size_t i) noexcept {
  const auto at = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char b0 = at(i);
  std::size_t expected = 0;
  unsigned char lo = 0x80;
  unsigned char hi = 0xBF;
  if (b0 >= 0xC2 && b0 <= 0xDF)
    expected = 2;
  else if (b0 >= 0xE0 && b0 <= 0xEF)
    expected = 3;
  else if (b0 >= 0xF0 && b0 <= 0xF4)
    expected = 4;
  if (expected == 0) return 1;
  if (b0 == 0xE0) lo = 0xA0;
  if (b0 == 0xED) hi = 0x9F;
  if (b0 == 0xF0) lo = 0x90;
  if (b0 == 0xF4) hi = 0x8F;
  if (i + 1 >= s.size() || at(i + 1) < lo || at(i + 1) > hi) return 1;
  std::size_t n = 2;
  while (n < expected && i + n < s.size() && (at(i + n) & 0xC0) == 0x80) ++n;
  return n;
}

}  // namespace

std::string replace_invalid(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  std::size_t i = 0;
  while (i < s.size()) {
    const std::size_t len = sequence_length(s, i);
    if (len == 0) {
      out += "\xEF\xBF\xBD";
      i += maximal_subpart(s, i);
    } else {
      out.append(s.substr(i, len));
      i += len;
    }
  }
  return out;
}

char32_t decode_at(std::string_view s, std::size_t pos) noexcept {
  const auto b = [&](std::size_t i) {
    return static_cast<char32_t>(static_cast<unsigned char>(s[i]));
  };
  const char32_t b0 = b(pos);
  if (b0 < 0x80) return b0;
  if (b0 < 0xE0) return ((b0 & 0x1F) << 6) | (b(pos + 1) & 0x3F);
  if (b0 < 0xF0) return ((b0 & 0x0F) << 12) | ((b(pos + 1) & 0x3F) << 6) | (b(pos + 2) & 0x3F);
  return ((b0 & 0x07) << 18) | ((b(pos + 1) & 0x3F) << 12) | ((b(pos + 2) & 0x3F) << 6) |
         (b(pos + 3) & 0x3F);
}

void append(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

std::size_t count_code_points(std::string_view s) noexcept {
  std::size_t n = 0;
  for (const char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

std::vector<std::string_view> split_code_points(std::string_view s) {
  std::vector<std::string_view> out;
  out.reserve(s.size());
  std::size_t i = 0;
  while (i < s.size()) {
    std::size_t len = sequence_length(s, i);
    if (len == 0) len = 1;  // tolerate bad bytes: one unit each
    out.push_back(s.substr(i, len));
    i += len;
  }
  return out;
}

}  // namespace tokenlab::utf8
