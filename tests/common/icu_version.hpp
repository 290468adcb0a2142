// Whether the ICU the tests run with is Debian 12's (ICU 72, Unicode 15.0):
// the tests that pin what Unicode 16.0 changed check ICU's own side only
// there, since a newer ICU already has 16.0's classes.
#pragma once

#include <unicode/uchar.h>

namespace tokenlab::test {

inline bool icu_is_unicode_15() {
  UVersionInfo version{};
  u_getUnicodeVersion(version);
  return version[0] == 15 && version[1] == 0;
}

}  // namespace tokenlab::test
