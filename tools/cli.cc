// Shared pieces of the `weft` subcommands.
#include "tools/cli.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tools/module_input.h"

namespace weft::cli {

CLI::Option* add_tier_option(CLI::App& command, std::string& tier) {
  CLI::Validator known_tier(
      [](std::string& value) -> std::string {
        if (value == "interp" || value == "jit") return {};
        return "unsupported tier '" + value + "' (available: interp, jit)";
      },
      "", "tier");
  return command.add_option("--tier", tier,
                            "Execution tier: jit (the baseline JIT, default, on x86-64 and AArch64; functions it "
                            "cannot compile (SIMD) and other machines run in the interpreter) or interp (the interpreter)")
      ->check(known_tier)
      ->type_name("TIER")
      ->capture_default_str();
}

Config make_config(const std::string& tier) {
  Config config;
  config.tier = tier == "jit" ? Tier::Jit : Tier::Interpreter;
  return config;
}

void add_limit_options(CLI::App& command, LimitArgs& limits) {
  const Config defaults;
  command.add_option("--fuel", limits.fuel,
                     "Execution budget: trap with \"all fuel consumed\" after N units (1 per call and per loop "
                     "iteration); 0 = unlimited (default)")
      ->type_name("N");
  command.add_option("--max-memory-pages", limits.max_memory_pages,
                     "Largest linear memory in 64 KiB pages (default " + std::to_string(defaults.max_memory_pages) +
                         "); larger memories fail to instantiate, memory.grow beyond returns -1")
      ->type_name("N")
      ->check(CLI::Range(uint64_t(0), kMaxMemoryPages));
  command.add_option("--max-table-elements", limits.max_table_elements,
                     "Largest table in elements (default " + std::to_string(defaults.max_table_elements) +
                         "); larger tables fail to instantiate, table.grow beyond returns -1")
      ->type_name("N");
  command.add_option("--max-call-depth", limits.max_call_depth,
                     "Wasm call depth before \"call stack exhausted\" (default " +
                         std::to_string(defaults.max_call_depth) + ")")
      ->type_name("N")
      ->check(CLI::Range(uint32_t(1), uint32_t(10'000'000)));
  command.add_option("--max-fibers", limits.max_fibers,
                     "Most fibers alive at once; fiber.new/fiber.spawn beyond trap \"too many fibers\" (default " +
                         std::to_string(defaults.max_fibers) + ")")
      ->type_name("N");
  command.add_option("--fiber-stack-size", limits.fiber_stack_size,
                     "Bytes reserved per started fiber: its native stack (a quarter, at least 67 KiB) plus its Wasm frames and "
                     "operands; committed lazily (default " + std::to_string(defaults.fiber_stack_size) + ")")
      ->type_name("BYTES")
      ->check(CLI::Range(uint64_t(128 * 1024), uint64_t(1) << 32));
  command.add_option("--compile", limits.compile,
                     "When functions are translated for the interpreter: lazy (at their first call, the default) or "
                     "eager (all at instantiation, so an untranslatable function fails the module)")
      ->type_name("lazy|eager")
      ->check(CLI::IsMember({"lazy", "eager"}));
  command.add_option("--guard-regions", limits.guard_regions,
                     "JIT memory accesses: on (the default on x86-64: 8 GiB reserved per memory, no bounds checks, "
                     "out-of-bounds accesses fault into the trap) or off (every access checked)")
      ->type_name("on|off")
      ->check(CLI::IsMember({"on", "off"}));
  command.add_flag("--disable-fibers", limits.disable_fibers,
                   "Strict Wasm 2.0: reject the fiber extension's types, tags and instructions as malformed");
  command.add_flag("--disable-function-references", limits.disable_function_references,
                   "Reject Wasm 3.0's typed function references (call_ref, (ref $t) of function types, "
                   "non-nullable locals): the fiber extension's version 1 typing");
  command.add_flag("--disable-multi-memory", limits.disable_multi_memory,
                   "Reject Wasm 3.0's multiple memories: at most one memory per module (Wasm 2.0)");
  command.add_flag("--disable-memory64", limits.disable_memory64,
                   "Reject Wasm 3.0's 64-bit memories and tables (i64 address types)");
  command.add_flag("--disable-tail-call", limits.disable_tail_call,
                   "Reject Wasm 3.0's tail calls (return_call, return_call_indirect, return_call_ref)");
  command.add_flag("--disable-extended-const", limits.disable_extended_const,
                   "Reject Wasm 3.0's extended constant expressions (i32/i64 add, sub, mul)");
  command.add_flag("--disable-exceptions", limits.disable_exceptions,
                   "Reject Wasm 3.0's exception handling (throw, throw_ref, try_table, exnref)");
}

Config make_config(const std::string& tier, const LimitArgs& limits) {
  Config config = make_config(tier);
  if (limits.fuel) config.fuel = *limits.fuel;
  if (limits.max_memory_pages) config.max_memory_pages = *limits.max_memory_pages;
  if (limits.max_table_elements) config.max_table_elements = *limits.max_table_elements;
  if (limits.max_call_depth) config.max_call_depth = *limits.max_call_depth;
  if (limits.max_fibers) config.max_fibers = *limits.max_fibers;
  if (limits.fiber_stack_size) config.fiber_stack_size = *limits.fiber_stack_size;
  if (limits.disable_fibers) config.enable_fibers = false;
  if (limits.disable_function_references) config.enable_function_references = false;
  if (limits.disable_multi_memory) config.enable_multi_memory = false;
  if (limits.disable_memory64) config.enable_memory64 = false;
  if (limits.disable_tail_call) config.enable_tail_call = false;
  if (limits.disable_extended_const) config.enable_extended_const = false;
  if (limits.disable_exceptions) config.enable_exceptions = false;
  if (limits.value_stack_bytes) config.value_stack_bytes = *limits.value_stack_bytes;
  if (limits.enable_simd) config.enable_simd = *limits.enable_simd;
  config.eager_compilation = limits.compile == "eager";
  config.guard_regions = limits.guard_regions == "on";
  config.interruptible = limits.timeout.has_value();
  return config;
}

int usage_error(const std::string& message) {
  std::fprintf(stderr, "error: %s\n", message.c_str());
  return kExitUsage;
}

int failure(const std::string& message) {
  std::fprintf(stderr, "error: %s\n", message.c_str());
  return kExitFailure;
}

int report_error(const Error& error, const std::string& context) {
  std::string prefix = context.empty() ? "" : context + ": ";
  if (error.kind == ErrorKind::Trap || error.kind == ErrorKind::Exhaustion) {
    std::fprintf(stderr, "error: %strap: %s\n", prefix.c_str(), error.message.c_str());
  } else if (error.kind == ErrorKind::Exception) {
    std::fprintf(stderr, "error: %s%s\n", prefix.c_str(), error.message.c_str());
  } else {
    std::fprintf(stderr, "error: %s%s\n", prefix.c_str(), error.to_string().c_str());
  }
  if (!error.detail.empty()) {
    std::fputs(error.detail.c_str(), stderr);
    if (error.detail.back() != '\n') std::fputc('\n', stderr);
  }
  switch (error.kind) {
    case ErrorKind::Trap:
    case ErrorKind::Exhaustion:
    case ErrorKind::Exception: return kExitTrap;  // an uncaught exception ends the program as a trap does
    case ErrorKind::Usage: return kExitUsage;
    default: return kExitFailure;
  }
}

std::optional<std::string> check_input_file(const std::string& path) {
  std::error_code ec;
  auto status = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(status)) return "cannot open '" + path + "': no such file";
  if (std::filesystem::is_directory(status)) return "cannot open '" + path + "': is a directory";
  std::ifstream in(path, std::ios::binary);
  if (!in) return "cannot open '" + path + "': " + std::strerror(errno);
  return std::nullopt;
}

Result<std::string> read_file(const std::string& path) {
  if (auto problem = check_input_file(path)) return make_error(ErrorKind::Io, *problem);
  std::ifstream in(path, std::ios::binary);
  // One sized read straight into the string (a stream buffer and a string
  // built from it were two copies of a large module); a stream without a
  // size (a pipe) is read to its end.
  std::string contents;
  in.seekg(0, std::ios::end);
  if (const std::streamoff size = in ? std::streamoff(in.tellg()) : -1; size >= 0) {
    contents.resize(size_t(size));
    in.seekg(0, std::ios::beg);
    if (!in.read(contents.data(), size)) return make_error(ErrorKind::Io, "cannot read '" + path + "'");
    return contents;
  }
  in.clear();
  contents.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  if (in.bad()) return make_error(ErrorKind::Io, "cannot read '" + path + "'");
  return contents;
}

Result<WasmModule> load_module_file(const Engine& engine, const std::string& path) {
  if (auto problem = check_input_file(path)) return make_error(ErrorKind::Io, *problem);
  // A regular file is mapped, not read: the decoder reads the page cache's
  // pages in place (MAP_POPULATE: mapped in one call, not a fault per
  // page), where a read into a buffer first zeroed the buffer's fresh pages
  // and then copied every byte — ~10 % of `weft run`'s start-up on a 22 MB
  // module. The module keeps nothing of its input (it copies what it needs),
  // so the mapping ends here. (A file shrunk by another process while being
  // loaded would fault: the price of any mapping, as in wasmtime.)
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  struct stat st {};
  if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
    const size_t size = size_t(st.st_size);
    void* mapped = mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
    close(fd);
    if (mapped != MAP_FAILED) {
      Result<WasmModule> module =
          tools::load_module(engine, path, std::string_view(static_cast<const char*>(mapped), size));
      munmap(mapped, size);
      return module;
    }
  } else if (fd >= 0) {
    close(fd);
  }
  // Not mappable (a pipe, an empty file, a refused mapping): read.
  Result<std::string> contents = read_file(path);
  if (!contents.ok()) return contents.error();
  return tools::load_module(engine, path, *contents);
}

}  // namespace weft::cli
