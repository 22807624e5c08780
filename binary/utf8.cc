// UTF-8 well-formedness of names (the spec's `name` production): no overlong
// forms, no surrogates, nothing above U+10FFFF.
#include "binary/reader.h"

namespace weft::binary::detail {

bool is_valid_utf8(const uint8_t* p, size_t n) {
  const uint8_t* end = p + n;
  while (p < end) {
    const uint8_t b = *p;
    if (b < 0x80) {
      ++p;
      continue;
    }
    // Bounds of the second byte depend on the lead byte (overlong / surrogate /
    // > U+10FFFF exclusions); later continuation bytes are always 80..BF.
    size_t len;
    uint8_t lo = 0x80, hi = 0xBF;
    if (b >= 0xC2 && b <= 0xDF) {
      len = 2;
    } else if (b >= 0xE0 && b <= 0xEF) {
      len = 3;
      if (b == 0xE0) lo = 0xA0;
      if (b == 0xED) hi = 0x9F;
    } else if (b >= 0xF0 && b <= 0xF4) {
      len = 4;
      if (b == 0xF0) lo = 0x90;
      if (b == 0xF4) hi = 0x8F;
    } else {
      return false;
    }
    if (size_t(end - p) < len) return false;
    if (p[1] < lo || p[1] > hi) return false;
    for (size_t i = 2; i < len; ++i) {
      if ((p[i] & 0xC0) != 0x80) return false;
    }
    p += len;
  }
  return true;
}

}  // namespace weft::binary::detail
