// decode_module: header, the section loop (ids, order, sizes), custom and name
// sections, and the checks that span sections (function/code and data counts).
#include "binary/decoder.h"

#include <utility>

#include "binary/module_decoder.h"
#include "binary/names.h"

namespace weft::binary {
namespace detail {
namespace {

// Position of a known section in kSectionOrder (1-based), 0 if unknown.
int section_rank(uint8_t id) {
  for (size_t i = 0; i < std::size(kSectionOrder); ++i) {
    if (kSectionOrder[i] == id) return int(i) + 1;
  }
  return 0;
}

}  // namespace

bool ModuleDecoder::header(Reader& r) {
  static constexpr uint8_t kMagic[4] = {0x00, 0x61, 0x73, 0x6D};
  static constexpr uint8_t kVersion[4] = {0x01, 0x00, 0x00, 0x00};
  if (r.remaining() < 4) return r.fail_at(r.offset_of(r.end()), kUnexpectedEnd);
  for (int i = 0; i < 4; ++i) {
    if (r.pos()[i] != kMagic[i]) return r.fail("magic header not detected");
  }
  (void)r.skip(4);
  if (r.remaining() < 4) return r.fail_at(r.offset_of(r.end()), kUnexpectedEnd);
  for (int i = 0; i < 4; ++i) {
    if (r.pos()[i] != kVersion[i]) return r.fail("unknown binary version");
  }
  return r.skip(4);
}

bool ModuleDecoder::custom_section(Reader& r, uint8_t after_section) {
  CustomSection custom;
  if (!r.name(custom.name)) return false;
  custom.bytes.assign(r.pos(), r.end());
  (void)r.skip(r.remaining());
  custom.after_section = after_section;
  module.customs.push_back(std::move(custom));
  return true;
}

bool ModuleDecoder::section(uint8_t id, Reader& r) {
  switch (SectionId(id)) {
    case kTypeSection: return type_section(r);
    case kImportSection: return import_section(r);
    case kFunctionSection: return function_section(r);
    case kTableSection: return table_section(r);
    case kMemorySection: return memory_section(r);
    case kGlobalSection: return global_section(r);
    case kExportSection: return export_section(r);
    case kStartSection: return start_section(r);
    case kElemSection: return elem_section(r);
    case kCodeSection: return code_section(r);
    case kDataSection: return data_section(r);
    case kDataCountSection: return data_count_section(r);
    case kTagSection: return tag_section(r);
    case kCustomSection: break;
  }
  return r.fail("malformed section id");
}

Result<Module> ModuleDecoder::decode() {
  const uint8_t* base = bytes.data();
  Reader top(base, base, base + bytes.size(), &failure, kUnexpectedEnd);
  bool ok = header(top);

  int last_rank = 0;
  uint8_t last_id = 0;
  while (ok && !top.at_end()) {
    const uint64_t id_offset = top.offset();
    uint8_t id = 0;
    (void)top.u8(id);
    const int rank = section_rank(id);
    if (id != kCustomSection && (rank == 0 || (id == kTagSection && !options.tags_enabled()))) {
      ok = top.fail_at(id_offset, "malformed section id");
      break;
    }
    uint32_t size = 0;
    if (!top.length(size)) {
      ok = false;
      break;
    }
    Reader content = top.take(size, kUnexpectedEndOfSection);
    if (id == kCustomSection) {
      ok = custom_section(content, last_id);
      continue;
    }
    // The spec decodes known sections in one fixed order, so a repeated or
    // out-of-order section is content after the sections it could still read.
    if (rank <= last_rank) {
      ok = top.fail_at(id_offset, "unexpected content after last section");
      break;
    }
    last_rank = rank;
    last_id = id;
    ok = section(id, content);
    if (ok && !content.at_end()) ok = content.fail("section size mismatch");
  }

  if (ok) {
    const uint64_t end = bytes.size();
    if (!saw_code_section && !module.functions.empty()) {
      ok = top.fail_at(end, "function and code section have inconsistent lengths");
    } else if (module.data_count && *module.data_count != module.datas.size()) {
      // Reached only without a data section (it checks its own count).
      ok = top.fail_at(end, "data count and data section have inconsistent lengths");
    }
  }
  if (!ok) {
    // A body before the failure may break a rule the deferred checks skipped:
    // that violation comes first in the input, so it is the one to report.
    if (options.defer_body_checks) {
      const Failure later = std::exchange(failure, Failure{});
      if (check_bodies(module.functions, bodies_read, module.data_count.has_value())) failure = later;
    }
    return make_error(ErrorKind::Malformed, failure.message, Location::at_offset(failure.offset));
  }

  // A malformed name section only loses the names (as in other engines): it is
  // debug information, and the custom section itself is kept verbatim anyway.
  for (const CustomSection& custom : module.customs) {
    if (custom.name != "name") continue;
    if (!parse_name_section(custom.bytes, module.names)) module.names = NameMap{};
    break;
  }
  return std::move(module);
}

}  // namespace detail

Result<Module> decode_module(std::span<const uint8_t> bytes, const DecodeOptions& options) {
  detail::ModuleDecoder decoder(bytes, options);
  return decoder.decode();
}

Result<Module> decode_module(std::span<const uint8_t> bytes, std::shared_ptr<const void> owner,
                             const DecodeOptions& options) {
  detail::ModuleDecoder decoder(bytes, options);
  decoder.module.source = std::move(owner);
  return decoder.decode();
}

Result<void> check_bodies(std::span<const uint8_t> bytes, const Module& module, const DecodeOptions& options) {
  detail::ModuleDecoder decoder(bytes, options);
  if (decoder.check_bodies(module.functions, module.functions.size(), module.data_count.has_value())) return {};
  return make_error(ErrorKind::Malformed, decoder.failure.message, Location::at_offset(decoder.failure.offset));
}

}  // namespace weft::binary
