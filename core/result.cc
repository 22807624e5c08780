// Error kinds and locations rendered for humans.
#include "core/result.h"

#include <cstdio>

namespace weft {

const char* error_kind_name(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::Malformed: return "malformed";
    case ErrorKind::Invalid: return "invalid";
    case ErrorKind::Unlinkable: return "unlinkable";
    case ErrorKind::Uninstantiable: return "uninstantiable";
    case ErrorKind::Trap: return "trap";
    case ErrorKind::Exhaustion: return "exhaustion";
    case ErrorKind::Exception: return "exception";
    case ErrorKind::Io: return "i/o";
    case ErrorKind::Usage: return "usage";
    case ErrorKind::Limit: return "limit";
  }
  return "error";
}

std::string Location::to_string() const {
  char buf[64];
  switch (kind) {
    case Kind::None: return {};
    case Kind::ByteOffset: std::snprintf(buf, sizeof buf, "offset 0x%llx", (unsigned long long)offset); return buf;
    case Kind::LineColumn: std::snprintf(buf, sizeof buf, "%u:%u", line, column); return buf;
    case Kind::Function:
      std::snprintf(buf, sizeof buf, "func %u +0x%llx", function, (unsigned long long)offset);
      return buf;
  }
  return {};
}

std::string Error::to_string() const {
  std::string s = error_kind_name(kind);
  s += " error";
  std::string where = location.to_string();
  if (!where.empty()) s += " at " + where;
  s += ": " + message;
  return s;
}

}  // namespace weft
