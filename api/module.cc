// WasmModule: loading (binary, text, file) and validation behind the public API.
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>

#include "api/module_impl.h"
#include "binary/decoder.h"
#include "core/module.h"
#include "text/text.h"
#include "validator/validator.h"
#include "weft/weft.h"

namespace weft {

namespace {
std::string describe(const Module& m, ExternKind kind, uint32_t type_index, const Import* imp) {
  switch (kind) {
    case ExternKind::Func: return to_string(m.types[type_index]);
    case ExternKind::Table: {
      TableType t = imp ? imp->table : m.table_type(type_index);
      return to_string(t.element) + " " + std::to_string(t.limits.min) +
             (t.limits.max ? " " + std::to_string(*t.limits.max) : "");
    }
    case ExternKind::Memory: {
      MemoryType t = imp ? imp->memory : m.memory_type(type_index);
      return std::to_string(t.limits.min) + (t.limits.max ? " " + std::to_string(*t.limits.max) : "") + " pages";
    }
    case ExternKind::Global: {
      GlobalType t = imp ? imp->global : m.global_type(type_index);
      return (t.is_mutable ? "mut " : "") + to_string(t.type);
    }
    case ExternKind::Tag: return "tag";
  }
  return "";
}
}  // namespace

namespace {
Result<WasmModule> validated(const Engine& engine, Module module, std::span<const uint8_t> unchecked_bytes = {},
                             const binary::DecodeOptions* decoded_with = nullptr) {
  validator::ValidateOptions options;
  options.enable_simd = engine.config().enable_simd;
  options.enable_fibers = engine.config().enable_fibers;
  options.enable_function_references = engine.config().enable_function_references;
  options.enable_multi_memory = engine.config().enable_multi_memory;
  options.enable_memory64 = engine.config().enable_memory64;
  options.enable_tail_call = engine.config().enable_tail_call;
  options.enable_extended_const = engine.config().enable_extended_const;
  options.enable_exceptions = engine.config().enable_exceptions;
  options.binary_bodies_unchecked = decoded_with != nullptr;
  Result<validator::ValidationInfo> info = validator::validate_module(module, options);
  if (!info.ok()) {
    // The bodies' malformed-binary rules come before validation: if one is
    // broken, that is the error the module has.
    if (decoded_with) WEFT_TRY(binary::check_bodies(unchecked_bytes, module, *decoded_with));
    return info.error();
  }
  auto impl = std::make_shared<WasmModule::Impl>();
  impl->module = std::make_shared<const Module>(std::move(module));
  impl->info = std::make_shared<const validator::ValidationInfo>(std::move(*info));
  WasmModule m;
  m.impl = std::move(impl);
  return m;
}
}  // namespace

Result<WasmModule> WasmModule::from_ir(const Engine& engine, Module module) {
  return validated(engine, std::move(module));
}

namespace {
// `owner`, when given, keeps `bytes` alive: the module's function bodies then
// view them instead of copying the code section (Module::source).
Result<WasmModule> from_binary_bytes(const Engine& engine, std::span<const uint8_t> bytes,
                                     std::shared_ptr<const void> owner) {
  binary::DecodeOptions options;
  options.enable_simd = engine.config().enable_simd;
  options.enable_fibers = engine.config().enable_fibers;
  options.enable_multi_memory = engine.config().enable_multi_memory;
  options.enable_memory64 = engine.config().enable_memory64;
  options.enable_exceptions = engine.config().enable_exceptions;
  // Validation reads every body: the decoder does not read them first.
  options.defer_body_checks = true;
  WEFT_TRY_ASSIGN(Module module, owner ? binary::decode_module(bytes, std::move(owner), options)
                                       : binary::decode_module(bytes, options));
  return validated(engine, std::move(module), bytes, &options);
}
}  // namespace

Result<WasmModule> WasmModule::from_binary(const Engine& engine, std::span<const uint8_t> bytes) {
  return from_binary_bytes(engine, bytes, nullptr);  // the caller's bytes: copied
}

Result<WasmModule> WasmModule::from_text(const Engine& engine, std::string_view text) {
  WEFT_TRY_ASSIGN(Module module, text::parse_module(text, {.memory64 = engine.config().enable_memory64}));
  return from_ir(engine, std::move(module));
}

Result<WasmModule> WasmModule::from_file(const Engine& engine, const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return make_error(ErrorKind::Io, "cannot open " + path + ": " + std::strerror(errno));
  // One sized read straight into the buffer the decoder reads (a large
  // module is read once, not copied through a stream buffer and a string);
  // streams without a size (pipes) are read to their end. A binary module
  // keeps the buffer: its function bodies are read where they are.
  auto buffer = std::make_shared<std::string>();
  std::string& data = *buffer;
  in.seekg(0, std::ios::end);
  if (const std::streamoff size = in ? std::streamoff(in.tellg()) : -1; size >= 0) {
    data.resize(size_t(size));
    in.seekg(0, std::ios::beg);
    if (!in.read(data.data(), size))
      return make_error(ErrorKind::Io, "cannot read " + path + ": " + std::strerror(errno));
  } else {
    in.clear();  // not seekable: nothing was consumed
    data.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  // Binary modules start with "\0asm"; anything else is treated as text.
  if (data.size() >= 4 && std::memcmp(data.data(), "\0asm", 4) == 0) {
    return from_binary_bytes(engine, std::span(reinterpret_cast<const uint8_t*>(data.data()), data.size()),
                             std::move(buffer));
  }
  return from_text(engine, data);
}

std::vector<WasmModule::ImportDesc> WasmModule::imports() const {
  std::vector<ImportDesc> out;
  const Module& m = *impl->module;
  for (const Import& imp : m.imports)
    out.push_back({imp.module, imp.name, imp.kind, describe(m, imp.kind, imp.type_index, &imp)});
  return out;
}

std::vector<WasmModule::ExportDesc> WasmModule::exports() const {
  std::vector<ExportDesc> out;
  const Module& m = *impl->module;
  for (const Export& e : m.exports) {
    uint32_t type = e.kind == ExternKind::Func ? m.function_type_index(e.index) : e.index;
    out.push_back({e.name, e.kind, describe(m, e.kind, type, nullptr)});
  }
  return out;
}

const Module& WasmModule::ir() const { return *impl->module; }

}  // namespace weft
