// `weft run FILE [ARGS…]` — instantiates a module with WASI preview1 and runs
// `_start` (a WASI command), or the export named by --invoke with ARGS parsed
// by its parameter types.
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "tools/cli.h"
#include "tools/value_text.h"
#include "wasi/wasi.h"

namespace weft::cli {

namespace {

struct RunArgs {
  std::string file;
  std::vector<std::string> args;
  std::string invoke;
  std::string tier = "jit";
  LimitArgs limits;
  std::vector<std::string> env;   // --env KEY=VALUE | KEY
  std::vector<std::string> dirs;  // --dir HOST[::GUEST]
};

std::string describe_params(const FuncType& type) {
  std::string s;
  for (const ValType& t : type.params) s += (s.empty() ? "" : " ") + to_string(t);
  return s.empty() ? "none" : s;
}

// The WASI view of the command line: argv[0] is FILE (as in wasmtime), --env
// KEY without a value copies the host's KEY, --dir maps HOST to GUEST.
Result<wasi::WasiOptions> wasi_options(const RunArgs& a, const std::vector<std::string>& program_args) {
  wasi::WasiOptions options;
  options.args.push_back(a.file);
  options.args.insert(options.args.end(), program_args.begin(), program_args.end());
  for (const std::string& var : a.env) {
    size_t eq = var.find('=');
    if (eq == 0 || var.empty()) return make_error(ErrorKind::Usage, "--env '" + var + "': expected KEY=VALUE or KEY");
    if (eq != std::string::npos) {
      options.env.push_back(var);
    } else if (const char* value = std::getenv(var.c_str())) {
      options.env.push_back(var + "=" + value);
    }
  }
  for (const std::string& dir : a.dirs) {
    size_t sep = dir.find("::");
    wasi::Preopen p;
    p.host_path = dir.substr(0, sep);
    p.guest_path = sep == std::string::npos ? dir : dir.substr(sep + 2);
    if (p.host_path.empty() || p.guest_path.empty())
      return make_error(ErrorKind::Usage, "--dir '" + dir + "': expected HOST or HOST::GUEST");
    options.preopens.push_back(std::move(p));
  }
  return options;
}

// Names the first import the linker cannot satisfy, saying why; signature
// mismatches of known functions are left to instantiation's own message.
std::optional<std::string> unresolved_import(const WasmModule& module, const Linker& linker) {
  for (const WasmModule::ImportDesc& imp : module.imports()) {
    if (linker.find(imp.module, imp.name)) continue;
    std::string msg = "unlinkable: unknown import \"" + imp.module + "\" \"" + imp.name + "\" (" + to_string(imp.kind) + ")";
    if (imp.module == "wasi_snapshot_preview1")
      msg += ": not a wasi_snapshot_preview1 function";
    else if (imp.module.rfind("wasi", 0) == 0)
      msg += ": only wasi_snapshot_preview1 is provided (rebuild the program with a current WASI toolchain)";
    else
      msg += ": `weft run` provides only the wasi_snapshot_preview1 module";
    return msg;
  }
  return std::nullopt;
}

int run_module(const RunArgs& a) {
  if (auto problem = check_input_file(a.file)) return usage_error(*problem);
  // Everything after FILE belongs to the program; a leading "--" is only a separator.
  std::vector<std::string> argv = a.args;
  if (!argv.empty() && argv.front() == "--") argv.erase(argv.begin());
  const bool is_start = a.invoke.empty();

  Result<wasi::WasiOptions> options = wasi_options(a, is_start ? argv : std::vector<std::string>{});
  if (!options.ok()) return usage_error(options.error().message);
  Result<std::unique_ptr<wasi::WasiContext>> wasi = wasi::WasiContext::create(std::move(*options));
  if (!wasi.ok()) return usage_error(wasi.error().message);

  Engine engine(make_config(a.tier, a.limits));
  Result<WasmModule> module = WasmModule::from_file(engine, a.file);
  if (!module.ok()) return report_error(module.error(), a.file);

  Store store(engine);
  Linker linker;
  (*wasi)->define(store, linker);
  if (auto problem = unresolved_import(*module, linker)) return failure(*problem);
  Result<Instance> instance = store.instantiate(*module, linker);
  if (!instance.ok()) {
    if (auto status = (*wasi)->exit_status(instance.error())) return int(*status);
    return report_error(instance.error());
  }
  (*wasi)->bind(*instance);

  const std::string name = is_start ? "_start" : a.invoke;
  std::optional<Extern> func = instance->get_export(name);
  if (!func) {
    if (is_start) return usage_error("no _start export; use --invoke NAME");
    std::string names;
    for (const auto& [export_name, ext] : instance->exports())
      if (ext.kind == ExternKind::Func) names += (names.empty() ? "" : ", ") + export_name;
    return usage_error("no exported function '" + name + "' (exported functions: " + (names.empty() ? "none" : names) + ")");
  }
  if (func->kind != ExternKind::Func)
    return usage_error("export '" + name + "' is a " + to_string(func->kind) + ", not a function");

  FuncType type = store.function_type(*func);
  std::vector<Value> args;
  if (!is_start) {
    if (argv.size() != type.params.size())
      return usage_error("'" + name + "' takes " + std::to_string(type.params.size()) + " argument(s) (" +
                         describe_params(type) + "), got " + std::to_string(argv.size()));
    for (size_t i = 0; i < argv.size(); ++i) {
      Result<Value> value = tools::parse_cli_value(type.params[i], argv[i]);
      if (!value.ok()) return usage_error(value.error().message);
      args.push_back(*value);
    }
  } else if (!type.params.empty()) {
    return usage_error("_start takes " + std::to_string(type.params.size()) + " parameter(s) (" +
                       describe_params(type) + "); a WASI command's _start takes none");
  }

  Result<std::vector<Value>> results = store.call(*func, args);
  if (!results.ok()) {
    // proc_exit unwinds as a trap; its status is the program's, not an error.
    if (auto status = (*wasi)->exit_status(results.error())) return int(*status);
    return report_error(results.error());
  }
  if (!is_start)
    for (const Value& v : *results) std::printf("%s\n", tools::format_cli_value(v).c_str());
  return kExitOk;
}

constexpr const char* kRunFooter = R"(
Runs a WASI command (wasi_snapshot_preview1): the guest sees ARGS as argv
(argv[0] = FILE), only the --env variables, the host's stdin/stdout/stderr,
and only the --dir directories. Paths cannot leave a preopened directory:
"..", absolute paths and symlinks pointing outside fail with ENOTCAPABLE.

  --dir HOST           preopen HOST under the same guest path
  --dir HOST::GUEST    preopen HOST as GUEST, e.g. --dir /tmp/out::/out
                       or --dir .::. so relative paths work as in a shell
  --env KEY=VALUE      set a variable; --env KEY copies the host's KEY

Exit status: the program's proc_exit(N) code (0 when _start returns);
1 on a trap (message and Wasm backtrace on stderr) or a rejected module;
2 on a usage error.

Example (Debian: apt install clang lld wasi-libc libclang-rt-14-dev-wasm32):
  clang --target=wasm32-wasi --sysroot=/usr -O2 hello.c -o hello.wasm
  weft run --dir .::. --env NAME=world hello.wasm arg1 arg2
)";

}  // namespace

void add_run_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<RunArgs>();
  CLI::App* cmd = app.add_subcommand("run", "Run a WebAssembly module (.wasm or .wat), e.g. a WASI command");
  cmd->add_option("--invoke", args->invoke, "Call this exported function with ARGS instead of _start")->type_name("NAME");
  cmd->add_option("--env", args->env, "Set a WASI environment variable (repeatable)")
      ->type_name("KEY[=VALUE]")
      ->allow_extra_args(false);
  cmd->add_option("--dir", args->dirs, "Preopen a host directory for WASI (repeatable)")
      ->type_name("HOST[::GUEST]")
      ->allow_extra_args(false);
  add_tier_option(*cmd, args->tier);
  add_limit_options(*cmd, args->limits);
  cmd->add_option("file", args->file, "Module file (.wasm binary or .wat text)")->required();
  cmd->add_option("args", args->args, "Program arguments (argv[1..]), or with --invoke the function's arguments");
  // Options go before FILE; everything after it is an argument (as in wasmtime).
  cmd->positionals_at_end(true);
  cmd->footer(kRunFooter);
  cmd->callback([args, &exit_code] { exit_code = run_module(*args); });
}

}  // namespace weft::cli
