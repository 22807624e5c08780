// `weft run FILE [ARGS…]` — instantiates a module and runs `_start`, or the
// export named by --invoke with ARGS parsed by its parameter types.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "tools/cli.h"
#include "tools/value_text.h"

namespace weft::cli {

namespace {

struct RunArgs {
  std::string file;
  std::vector<std::string> args;
  std::string invoke;
  std::string tier = "interp";
};

std::string describe_params(const FuncType& type) {
  std::string s;
  for (const ValType& t : type.params) s += (s.empty() ? "" : " ") + to_string(t);
  return s.empty() ? "none" : s;
}

// No host modules exist yet (WASI comes later), so any import is unlinkable;
// name the first one clearly instead of a generic linker message.
std::optional<std::string> unsupported_import(const WasmModule& module) {
  std::vector<WasmModule::ImportDesc> imports = module.imports();
  if (imports.empty()) return std::nullopt;
  const WasmModule::ImportDesc& imp = imports.front();
  std::string msg = "unlinkable: unknown import \"" + imp.module + "\" \"" + imp.name + "\" (" + to_string(imp.kind) + ")";
  if (imp.module == "wasi_snapshot_preview1" || imp.module == "wasi_unstable")
    msg += ": WASI is not supported yet";
  else
    msg += ": `weft run` provides no host modules";
  return msg;
}

int run_module(const RunArgs& a) {
  if (auto problem = check_input_file(a.file)) return usage_error(*problem);
  // Everything after FILE belongs to the program; a leading "--" is only a separator.
  std::vector<std::string> argv = a.args;
  if (!argv.empty() && argv.front() == "--") argv.erase(argv.begin());

  Engine engine(make_config(a.tier));
  Result<WasmModule> module = WasmModule::from_file(engine, a.file);
  if (!module.ok()) return report_error(module.error(), a.file);
  if (auto problem = unsupported_import(*module)) return failure(*problem);

  Store store(engine);
  Linker linker;
  Result<Instance> instance = store.instantiate(*module, linker);
  if (!instance.ok()) return report_error(instance.error());

  const bool is_start = a.invoke.empty();
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
  if (is_start && !argv.empty())
    return usage_error("program arguments need WASI, which is not supported yet; use --invoke NAME ARGS...");

  FuncType type = store.function_type(*func);
  if (argv.size() != type.params.size())
    return usage_error("'" + name + "' takes " + std::to_string(type.params.size()) + " argument(s) (" +
                       describe_params(type) + "), got " + std::to_string(argv.size()));
  std::vector<Value> args;
  for (size_t i = 0; i < argv.size(); ++i) {
    Result<Value> value = tools::parse_cli_value(type.params[i], argv[i]);
    if (!value.ok()) return usage_error(value.error().message);
    args.push_back(*value);
  }

  Result<std::vector<Value>> results = store.call(*func, args);
  if (!results.ok()) return report_error(results.error());
  for (const Value& v : *results) std::printf("%s\n", tools::format_cli_value(v).c_str());
  return kExitOk;
}

}  // namespace

void add_run_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<RunArgs>();
  CLI::App* cmd = app.add_subcommand("run", "Run a WebAssembly module (.wasm or .wat)");
  cmd->add_option("--invoke", args->invoke, "Call this exported function instead of _start")->type_name("NAME");
  add_tier_option(*cmd, args->tier);
  cmd->add_option("file", args->file, "Module file (.wasm binary or .wat text)")->required();
  cmd->add_option("args", args->args, "Arguments for the invoked function (after FILE)");
  // Options go before FILE; everything after it is an argument (as in wasmtime).
  cmd->positionals_at_end(true);
  cmd->callback([args, &exit_code] { exit_code = run_module(*args); });
}

}  // namespace weft::cli
