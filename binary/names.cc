// Reading and writing the "name" section's module-name (0) and function-name
// (1) subsections.
#include "binary/names.h"

#include <algorithm>

#include "binary/reader.h"
#include "core/leb128.h"

namespace weft::binary {
namespace {

enum NameSubsection : uint8_t { kModuleName = 0, kFunctionNames = 1 };

void write_name(std::vector<uint8_t>& out, const std::string& s) {
  write_leb_u32(out, uint32_t(s.size()));
  out.insert(out.end(), s.begin(), s.end());
}

}  // namespace

bool parse_name_section(std::span<const uint8_t> payload, NameMap& out) {
  using detail::Reader;
  detail::Failure failure;
  Reader r(payload.data(), payload.data(), payload.data() + payload.size(), &failure,
           detail::kUnexpectedEnd);
  out = NameMap{};
  bool seen_module = false, seen_functions = false;
  while (!r.at_end()) {
    uint8_t id = 0;
    uint32_t size = 0;
    if (!r.u8(id) || !r.length(size)) return false;
    Reader sub = r.take(size, detail::kUnexpectedEnd);
    if (id == kModuleName && !seen_module) {
      seen_module = true;
      std::string name;
      if (!sub.name(name)) return false;
      out.module_name = std::move(name);
    } else if (id == kFunctionNames && !seen_functions) {
      seen_functions = true;
      const bool ok = detail::read_vec(sub, out.function_names, 2, [&](std::pair<uint32_t, std::string>& entry) {
        return sub.u32(entry.first) && sub.name(entry.second);
      });
      if (!ok) return false;
      // The format wants increasing indices; tolerate producers that do not
      // sort, keeping the first name of a repeated index.
      if (!std::is_sorted(out.function_names.begin(), out.function_names.end(),
                          [](const auto& a, const auto& b) { return a.first < b.first; })) {
        std::stable_sort(out.function_names.begin(), out.function_names.end(),
                         [](const auto& a, const auto& b) { return a.first < b.first; });
      }
      auto dup = std::unique(out.function_names.begin(), out.function_names.end(),
                             [](const auto& a, const auto& b) { return a.first == b.first; });
      out.function_names.erase(dup, out.function_names.end());
    } else {
      continue;  // local names and later extensions: not needed
    }
    if (!sub.at_end()) return false;
  }
  return true;
}

std::vector<uint8_t> encode_name_section(const NameMap& names) {
  std::vector<uint8_t> out, sub;
  if (names.module_name) {
    write_name(sub, *names.module_name);
    out.push_back(kModuleName);
    write_leb_u32(out, uint32_t(sub.size()));
    out.insert(out.end(), sub.begin(), sub.end());
  }
  if (!names.function_names.empty()) {
    sub.clear();
    write_leb_u32(sub, uint32_t(names.function_names.size()));
    for (const auto& [index, name] : names.function_names) {
      write_leb_u32(sub, index);
      write_name(sub, name);
    }
    out.push_back(kFunctionNames);
    write_leb_u32(out, uint32_t(sub.size()));
    out.insert(out.end(), sub.begin(), sub.end());
  }
  return out;
}

}  // namespace weft::binary
