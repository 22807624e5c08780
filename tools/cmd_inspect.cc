// `weft inspect --dispatch FILE` — instantiates a module (imports from the
// spectest module only) and prints every suspension point's event dispatch
// table: its tags, table size, multiplier and probe count.
// `weft inspect --disasm FUNC FILE` — instantiates it on the JIT tier and
// prints the machine code generated for the exported function FUNC (capstone:
// x86-64 or AArch64, whichever the JIT generates).
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "runtime/objects.h"
#include "tools/cli.h"

#ifdef WEFT_HAVE_CAPSTONE
#include <capstone/capstone.h>
#include <dlfcn.h>
#endif

namespace weft::cli {

namespace {

#ifdef WEFT_HAVE_CAPSTONE
// capstone, opened when --disasm runs rather than linked in: Debian's build
// knows every architecture, and its tables hold 1.3 MB of pointers that the
// dynamic loader relocated — page by page, each a fresh page fault — at every
// start of weft, about a third of the start-up of an empty module. Only the
// library whose major version matches the header is used (the structures
// differ between majors).
class Capstone {
 public:
  ~Capstone() {
    if (library_) dlclose(library_);
  }
  // Empty when the library cannot be opened; `why` then says what failed.
  static std::unique_ptr<Capstone> open(std::string& why) {
    const std::string soname = "libcapstone.so." + std::to_string(CS_API_MAJOR);
    void* library = dlopen(soname.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!library) {
      why = dlerror();
      return nullptr;
    }
    auto cs = std::unique_ptr<Capstone>(new Capstone(library));
    if (!cs->resolve(cs->version, "cs_version") || !cs->resolve(cs->open_handle, "cs_open") ||
        !cs->resolve(cs->option, "cs_option") || !cs->resolve(cs->disasm, "cs_disasm") ||
        !cs->resolve(cs->free, "cs_free") || !cs->resolve(cs->close, "cs_close")) {
      why = soname + " lacks " + cs->missing_;
      return nullptr;
    }
    int major = 0, minor = 0;
    cs->version(&major, &minor);
    if (major != CS_API_MAJOR) {
      why = soname + " is version " + std::to_string(major) + "." + std::to_string(minor) + ", weft was built with " +
            std::to_string(CS_API_MAJOR);
      return nullptr;
    }
    return cs;
  }

  decltype(&cs_version) version = nullptr;
  decltype(&cs_open) open_handle = nullptr;
  decltype(&cs_option) option = nullptr;
  decltype(&cs_disasm) disasm = nullptr;
  decltype(&cs_free) free = nullptr;
  decltype(&cs_close) close = nullptr;

 private:
  explicit Capstone(void* library) : library_(library) {}
  template <typename Function>
  bool resolve(Function& function, const char* name) {
    function = reinterpret_cast<Function>(dlsym(library_, name));
    if (!function) missing_ = name;
    return function != nullptr;
  }
  void* library_;
  std::string missing_;
};
#endif

void print_raw_bytes(std::span<const uint8_t> code, const std::string& why) {
  for (size_t i = 0; i < code.size(); ++i) std::printf("%s%02x", i % 16 ? " " : (i ? "\n  " : "  "), code[i]);
  std::printf("\n(%s: raw bytes)\n", why.c_str());
}

// What both views need: FILE instantiated (imports from the spectest module
// only; its start function, if any, runs). On failure `exit_code` is the
// reported error's.
struct Inspected {
  Engine engine;
  Store store{engine};
  std::optional<Instance> instance;
  int exit_code = kExitOk;
  explicit Inspected(const Config& config) : engine(config) {}
};

std::unique_ptr<Inspected> instantiate_for_inspection(const std::string& file, const Config& config) {
  auto in = std::make_unique<Inspected>(config);
  if (auto problem = check_input_file(file)) {
    in->exit_code = usage_error(*problem);
    return in;
  }
  Result<WasmModule> module = load_module_file(in->engine, file);
  if (!module.ok()) {
    in->exit_code = report_error(module.error(), file);
    return in;
  }
  Linker linker;
  in->store.define_spectest(linker);
  // Other function imports (WASI, say) become stubs that trap if called:
  // inspection compiles and instantiates, it runs nothing but a start function.
  const Module& ir = module->ir();
  for (const Import& import : ir.imports) {
    if (import.kind != ExternKind::Func || linker.find(import.module, import.name)) continue;
    const std::string name = import.module + "." + import.name;
    linker.define(import.module, import.name,
                  in->store.create_host_function(
                      ir.types[import.type_index],
                      [name](std::span<const Value>, std::span<Value>) -> Result<void> {
                        return make_error(ErrorKind::Trap, "inspect: import " + name + " is a stub");
                      },
                      name));
  }
  Result<Instance> instance = in->store.instantiate(*module, linker);
  if (!instance.ok()) {
    in->exit_code = report_error(instance.error(), file);
    return in;
  }
  in->instance = *instance;
  return in;
}

int inspect_dispatch(const std::string& file) {
  // Tables are built at instantiation (tag identities are known then).
  auto in = instantiate_for_inspection(file, Config{});
  if (!in->instance) return in->exit_code;
  const std::optional<Instance>& instance = in->instance;
  std::vector<DispatchSiteInfo> sites = instance->dispatch_sites();
  std::printf("%s: %zu dispatch site%s\n", file.c_str(), sites.size(), sites.size() == 1 ? "" : "s");
  for (const DispatchSiteInfo& site : sites) {
    std::printf("  %s @%u%s: %zu key%s, table size %zu, multiplier 0x%016" PRIx64 ", shift %u, probes %u (built in %u attempt%s)\n",
                site.function_name.c_str(), site.code_offset, site.function_entry ? " (function entry)" : "",
                site.tags.size(), site.tags.size() == 1 ? "" : "s", site.table_size, site.multiplier, site.shift,
                site.probes, site.build_attempts, site.build_attempts == 1 ? "" : "s");
    for (auto [index, identity] : site.tags) std::printf("    tag %u (identity %" PRIu64 ")\n", index, identity);
  }
  return kExitOk;
}

int inspect_disasm(const std::string& file, const std::string& func) {
  Config config;
  config.tier = Tier::Jit;
  config.eager_compilation = true;  // the code of every function, as eager compilation makes it
  auto in = instantiate_for_inspection(file, config);
  if (!in->instance) return in->exit_code;
  const std::optional<Instance>& instance = in->instance;
  Store& store = in->store;
  std::optional<Extern> ext = instance->get_export(func);
  // `#N`: function N of the module's index space (what a profile names
  // `wasm:func[N]`), exported or not.
  if (!ext && func.size() > 1 && func[0] == '#' && func.find_first_not_of("0123456789", 1) == std::string::npos) {
    const auto& functions = instance->raw->functions;
    const unsigned long index = std::strtoul(func.c_str() + 1, nullptr, 10);
    if (func.size() > 11 || index >= functions.size())
      return usage_error("inspect: no function " + func + " (the module has " + std::to_string(functions.size()) + ")");
    ext = Extern{ExternKind::Func, functions[index]};
  }
  if (!ext || ext->kind != ExternKind::Func)
    return usage_error("inspect: no exported function '" + func + "' (or #INDEX for any function)");
  if (store.tier_stats().tier != Tier::Jit) return usage_error("inspect: this build has no JIT tier");
  std::span<const uint8_t> code = store.jit_code(*ext);
  if (code.empty()) {
    std::printf("%s: not compiled by the JIT (runs in the interpreter)\n", func.c_str());
    for (const std::string& reason : store.tier_stats().fallback_reasons) std::printf("  fallback: %s\n", reason.c_str());
    return kExitOk;
  }
  const std::string machine = Store::jit_machine();
  std::printf("%s: %zu bytes of %s\n", func.c_str(), code.size(), machine.c_str());
#ifdef WEFT_HAVE_CAPSTONE
  std::string why;
  std::unique_ptr<Capstone> cs = Capstone::open(why);
  if (!cs) {
    print_raw_bytes(code, "capstone not available: " + why);
    return kExitOk;
  }
  csh handle;
  const bool aarch64 = machine == "aarch64";
  if (cs->open_handle(aarch64 ? CS_ARCH_ARM64 : CS_ARCH_X86, aarch64 ? CS_MODE_ARM : CS_MODE_64, &handle) != CS_ERR_OK)
    return usage_error("inspect: capstone failed to start");
  // br_table jump tables sit inline after their jump: bytes capstone cannot
  // decode are shown as data (.byte) and decoding goes on after them.
  cs->option(handle, CS_OPT_SKIPDATA, CS_OPT_ON);
  cs_insn* insns = nullptr;
  size_t count = cs->disasm(handle, code.data(), code.size(), 0, 0, &insns);
  for (size_t i = 0; i < count; ++i) {
    std::string bytes;
    char hex[4];
    for (uint16_t b = 0; b < insns[i].size; ++b) {
      std::snprintf(hex, sizeof hex, "%02x ", insns[i].bytes[b]);
      bytes += hex;
    }
    std::printf("  %6" PRIx64 ":  %-30s %s %s\n", insns[i].address, bytes.c_str(), insns[i].mnemonic, insns[i].op_str);
  }
  size_t decoded = count ? size_t(insns[count - 1].address + insns[count - 1].size) : 0;
  if (decoded < code.size()) std::printf("  %6zx:  (%zu bytes of data)\n", decoded, code.size() - decoded);
  cs->free(insns, count);
  cs->close(&handle);
#else
  print_raw_bytes(code, "built without capstone");
#endif
  return kExitOk;
}

}  // namespace

void add_inspect_command(CLI::App& app, int& exit_code) {
  auto file = std::make_shared<std::string>();
  auto dispatch = std::make_shared<bool>(false);
  auto disasm = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand("inspect", "Show internal tables or generated code of a module");
  cmd->add_flag("--dispatch", *dispatch, "Print every suspension point's perfect-hash event dispatch table");
  cmd->add_option("--disasm", *disasm,
                  "Print the JIT's machine code for the exported function FUNC (or #INDEX: any function by index)")
      ->type_name("FUNC");
  cmd->add_option("file", *file, "Module file (.wasm or .wat)")->required();
  cmd->callback([file, dispatch, disasm, &exit_code] {
    if (!*dispatch && disasm->empty()) {
      exit_code = usage_error("inspect: choose what to show (--dispatch, --disasm FUNC)");
      return;
    }
    if (*dispatch) exit_code = inspect_dispatch(*file);
    if (!disasm->empty() && exit_code == kExitOk) exit_code = inspect_disasm(*file, *disasm);
  });
}

}  // namespace weft::cli
