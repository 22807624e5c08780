// `weft run FILE [ARGS…]` — instantiates a module with WASI preview1 and runs
// `_start` (a WASI command), or the export named by --invoke with ARGS parsed
// by its parameter types. Takes wasmtime's `run` flags too (--argv0,
// --preload, -W, -S), so wasmtime command lines carry over.
#include <algorithm>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "tools/cli.h"
#include "tools/value_text.h"
#include "tools/wasmtime_options.h"
#include "wasi/wasi.h"

extern char** environ;

namespace weft::cli {

namespace {

struct RunArgs {
  std::string file;
  std::vector<std::string> args;
  std::string invoke;
  std::string argv0;  // --argv0; default: FILE's base name
  std::string tier = "jit";
  LimitArgs limits;
  std::vector<std::string> env;           // --env KEY=VALUE | KEY
  std::vector<std::string> dirs;          // --dir HOST[::GUEST]
  std::vector<std::string> tcp_listen;    // --tcplisten HOST:PORT
  std::vector<std::string> preloads;      // --preload NAME=PATH
  std::vector<std::string> wasm_options;  // -W KEY[=VAL][,…]
  std::vector<std::string> wasi_options;  // -S KEY[=VAL][,…]
  bool tier_stats = false;                // -v, --tier-stats
  std::string timeout;                    // --timeout DURATION (as -W timeout=)
  std::string profile;                    // --profile=perfmap
};

struct Preload {
  std::string name, path;
};

std::string describe_params(const FuncType& type) {
  std::string s;
  for (const ValType& t : type.params) s += (s.empty() ? "" : " ") + to_string(t);
  return s.empty() ? "none" : s;
}

// "KEY=VALUE" entries with later ones replacing earlier ones of the same KEY.
void set_env(std::vector<std::string>& env, const std::string& entry) {
  const std::string key = entry.substr(0, entry.find('=') + 1);
  for (std::string& e : env)
    if (e.rfind(key, 0) == 0) {
      e = entry;
      return;
    }
  env.push_back(entry);
}

// The WASI view of the command line, as wasmtime builds it: argv[0] is FILE's
// base name (or --argv0), then ARGS — also with --invoke; -S inherit-env
// copies the host environment, then --env KEY=VALUE sets and --env KEY copies
// the host's KEY (left unset when the host has none); --tcplisten (then
// -S tcplisten=) sockets come first from fd 3, then --dir maps HOST to GUEST.
Result<wasi::WasiOptions> wasi_options(const RunArgs& a, const tools::WasiOptionSettings& wasi_settings) {
  wasi::WasiOptions options;
  options.args.push_back(a.argv0.empty() ? std::filesystem::path(a.file).filename().string() : a.argv0);
  options.args.insert(options.args.end(), a.args.begin(), a.args.end());
  if (wasi_settings.inherit_env)
    for (char** var = environ; *var; ++var) set_env(options.env, *var);
  for (const std::string& var : a.env) {
    size_t eq = var.find('=');
    if (eq == 0 || var.empty()) return make_error(ErrorKind::Usage, "--env '" + var + "': expected KEY=VALUE or KEY");
    if (eq != std::string::npos) {
      set_env(options.env, var);
    } else if (const char* value = std::getenv(var.c_str())) {
      set_env(options.env, var + "=" + value);
    }
  }
  options.tcp_listen = a.tcp_listen;
  options.tcp_listen.insert(options.tcp_listen.end(), wasi_settings.tcp_listen.begin(), wasi_settings.tcp_listen.end());
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

Result<std::vector<Preload>> parse_preloads(const std::vector<std::string>& specs) {
  std::vector<Preload> preloads;
  for (const std::string& spec : specs) {
    const size_t eq = spec.find('=');
    if (eq == 0 || eq == std::string::npos || eq + 1 == spec.size())
      return make_error(ErrorKind::Usage, "--preload '" + spec + "': expected NAME=PATH");
    preloads.push_back({spec.substr(0, eq), spec.substr(eq + 1)});
  }
  return preloads;
}

// weft's own limit flags, then wasmtime's -W keys on top.
Result<LimitArgs> limits_with_wasm_options(const RunArgs& a) {
  tools::WasmOptionSettings w;
  for (const std::string& list : a.wasm_options) WEFT_TRY(tools::apply_wasm_options(list, w));
  LimitArgs limits = a.limits;
  if (w.fuel) limits.fuel = w.fuel;
  if (w.max_memory_pages) limits.max_memory_pages = w.max_memory_pages;
  if (w.max_table_elements) limits.max_table_elements = w.max_table_elements;
  if (w.value_stack_bytes) limits.value_stack_bytes = w.value_stack_bytes;
  if (w.simd) limits.enable_simd = w.simd;
  if (w.fibers) limits.disable_fibers = !*w.fibers;
  if (w.function_references) limits.disable_function_references = !*w.function_references;
  if (w.multi_memory) limits.disable_multi_memory = !*w.multi_memory;
  if (w.memory64) limits.disable_memory64 = !*w.memory64;
  if (w.tail_call) limits.disable_tail_call = !*w.tail_call;
  if (w.extended_const) limits.disable_extended_const = !*w.extended_const;
  if (w.exceptions) limits.disable_exceptions = !*w.exceptions;
  if (!a.timeout.empty()) {
    Result<std::chrono::milliseconds> d = tools::parse_duration(a.timeout);
    if (!d.ok()) return make_error(ErrorKind::Usage, "--timeout: " + d.error().message);
    limits.timeout = *d;
  }
  if (w.timeout) limits.timeout = w.timeout;
  return limits;
}

// -v / --tier-stats: which tier ran and what the JIT left to the interpreter,
// on stderr so the program's own output stays as it is.
void print_tier_stats(const TierStats& stats) {
  if (stats.tier != Tier::Jit) {
    std::fprintf(stderr, "weft: tier interp: the interpreter ran every function\n");
    return;
  }
  std::fprintf(stderr, "weft: tier jit: %u functions compiled, %u fell back to the interpreter\n", stats.jit_compiled,
               stats.jit_fallbacks);
  for (const std::string& reason : stats.fallback_reasons) std::fprintf(stderr, "  fallback: %s\n", reason.c_str());
}

// Names the first import the linker cannot satisfy, saying why; signature
// mismatches of known functions are left to instantiation's own message.
std::optional<std::string> unresolved_import(const WasmModule& module, const Linker& linker,
                                             const std::vector<Preload>& preloaded) {
  for (const WasmModule::ImportDesc& imp : module.imports()) {
    if (linker.find(imp.module, imp.name)) continue;
    std::string msg = "unlinkable: unknown import \"" + imp.module + "\" \"" + imp.name + "\" (" + to_string(imp.kind) + ")";
    const bool is_preload =
        std::any_of(preloaded.begin(), preloaded.end(), [&](const Preload& p) { return p.name == imp.module; });
    if (imp.module == "wasi_snapshot_preview1")
      msg += ": not a wasi_snapshot_preview1 function";
    else if (is_preload)
      msg += ": not exported by the --preload module " + imp.module;
    else if (imp.module.rfind("wasi", 0) == 0)
      msg += ": only wasi_snapshot_preview1 is provided (rebuild the program with a current WASI toolchain)";
    else
      msg += ": `weft run` provides the wasi_snapshot_preview1 module and the modules given with --preload NAME=PATH";
    return msg;
  }
  return std::nullopt;
}

int run_module(const RunArgs& a) {
  // `-W help` / `-S help` list the keys, as in wasmtime.
  const auto asks_for_help = [](const std::vector<std::string>& lists) {
    return std::find(lists.begin(), lists.end(), "help") != lists.end();
  };
  if (asks_for_help(a.wasm_options) || asks_for_help(a.wasi_options)) {
    if (asks_for_help(a.wasm_options)) std::printf("Available -W options:\n%s", tools::wasm_options_help().c_str());
    if (asks_for_help(a.wasi_options)) std::printf("Available -S options:\n%s", tools::wasi_options_help().c_str());
    return kExitOk;
  }
  Result<LimitArgs> limits = limits_with_wasm_options(a);
  if (!limits.ok()) return usage_error(limits.error().message);
  tools::WasiOptionSettings wasi_settings;
  for (const std::string& list : a.wasi_options)
    if (Result<void> r = tools::apply_wasi_options(list, wasi_settings); !r.ok()) return usage_error(r.error().message);
  Result<std::vector<Preload>> preloads = parse_preloads(a.preloads);
  if (!preloads.ok()) return usage_error(preloads.error().message);

  // FILE is checked here, not by the parser, so that `-W help` needs none.
  if (a.file.empty()) return usage_error("a module FILE is required: weft run [OPTIONS] FILE [ARGS...]");
  if (auto problem = check_input_file(a.file)) return usage_error(*problem);
  for (const Preload& p : *preloads)
    if (auto problem = check_input_file(p.path)) return usage_error("--preload " + p.name + ": " + *problem);
  // Everything after FILE belongs to the program, a "--" too (as in wasmtime).
  const std::vector<std::string>& argv = a.args;
  const bool is_start = a.invoke.empty();

  Result<wasi::WasiOptions> options = wasi_options(a, wasi_settings);
  if (!options.ok()) return usage_error(options.error().message);
  Result<std::unique_ptr<wasi::WasiContext>> wasi = wasi::WasiContext::create(std::move(*options));
  if (!wasi.ok()) return usage_error(wasi.error().message);
  // A port chosen by the kernel is otherwise unknowable for the clients.
  for (const wasi::ListeningSocket& listener : (*wasi)->listeners())
    if (listener.requested.ends_with(":0"))
      std::fprintf(stderr, "weft: listening on %s (fd %u)\n", listener.bound.c_str(), listener.guest_fd);

  Config config = make_config(a.tier, *limits);
  if (!a.profile.empty()) {
    if (a.profile != "perfmap")
      return usage_error("--profile=" + a.profile + " is not supported yet (weft has --profile=perfmap: perf's "
                         "/tmp/perf-PID.map naming JIT code)");
    config.perf_map = true;
  }
  Engine engine(config);
  Result<WasmModule> module = load_module_file(engine, a.file);
  if (!module.ok()) return report_error(module.error(), a.file);

  Store store(engine);
  // Reported however the run ends: success, trap or proc_exit.
  struct TierStatsOnExit {
    const Store& store;
    bool wanted;
    ~TierStatsOnExit() {
      if (wanted) print_tier_stats(store.tier_stats());
    }
  } tier_stats_on_exit{store, a.tier_stats};

  // --timeout / -W timeout=: a watchdog thread interrupts the store when the
  // time is up (the code traps "interrupted" at its next call or loop
  // iteration); it is told to stop when the run ends first.
  struct Watchdog {
    std::mutex mutex;
    std::condition_variable done_cv;
    bool done = false;
    bool fired = false;
    std::thread thread;
    ~Watchdog() {
      if (!thread.joinable()) return;
      {
        std::lock_guard<std::mutex> lock(mutex);
        done = true;
      }
      done_cv.notify_all();
      thread.join();
    }
  } watchdog;
  if (limits->timeout) {
    Result<InterruptHandle> handle = store.interrupt_handle();
    if (!handle.ok()) return failure(handle.error().message);
    watchdog.thread = std::thread([&watchdog, handle = *handle, timeout = *limits->timeout] {
      std::unique_lock<std::mutex> lock(watchdog.mutex);
      if (watchdog.done_cv.wait_for(lock, timeout, [&] { return watchdog.done; })) return;
      watchdog.fired = true;
      handle.interrupt();
    });
  }
  auto report_run_error = [&](const Error& error, const std::string& where = "") {
    if (watchdog.fired) {
      if (a.timeout.empty()) std::fprintf(stderr, "weft: the -W timeout elapsed\n");
      else std::fprintf(stderr, "weft: the --timeout of %s elapsed\n", a.timeout.c_str());
    }
    return where.empty() ? report_error(error) : report_error(error, where);
  };

  Linker linker;
  (*wasi)->define(store, linker);
  // --preload NAME=PATH: instantiated in order, each linked against WASI and
  // the preloads before it; its exports become importable as module NAME.
  for (const Preload& p : *preloads) {
    Result<WasmModule> preload = load_module_file(engine, p.path);
    if (!preload.ok()) return report_error(preload.error(), p.path);
    if (auto problem = unresolved_import(*preload, linker, *preloads)) return failure(p.path + ": " + *problem);
    Result<Instance> instance = store.instantiate(*preload, linker);
    if (!instance.ok()) {
      if (auto status = (*wasi)->exit_status(instance.error())) return int(*status);
      return report_run_error(instance.error(), p.path);
    }
    linker.define_instance(p.name, *instance);
  }
  if (auto problem = unresolved_import(*module, linker, *preloads)) return failure(*problem);
  Result<Instance> instance = store.instantiate(*module, linker);
  if (!instance.ok()) {
    if (auto status = (*wasi)->exit_status(instance.error())) return int(*status);
    return report_run_error(instance.error());
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
    return report_run_error(results.error());
  }
  if (!is_start)
    for (const Value& v : *results) std::printf("%s\n", tools::format_cli_value(v).c_str());
  return kExitOk;
}

constexpr const char* kRunFooter = R"(
Runs a WASI command (wasi_snapshot_preview1): the guest sees ARGS as argv
(argv[0] = FILE's base name, or --argv0), only the --env variables, the
host's stdin/stdout/stderr, and only the --dir directories. Paths cannot
leave a preopened directory: "..", absolute paths and symlinks pointing
outside fail with ENOTCAPABLE.

  --dir HOST           preopen HOST under the same guest path
  --dir HOST::GUEST    preopen HOST as GUEST, e.g. --dir /tmp/out::/out
                       or --dir .::. so relative paths work as in a shell
  --env KEY=VALUE      set a variable; --env KEY copies the host's KEY
  --tcplisten HOST:PORT
                       a listening TCP socket as fd 3 (the next from 3 when
                       repeated), before the --dir preopens; the program
                       accepts with sock_accept and polls with poll_oneoff
  -S inherit-env       give the program the whole host environment
  -W fuel=N,max-memory-size=BYTES,max-wasm-stack=BYTES,simd=n, …
                       wasmtime's limits and features (-W help lists them)

wasmtime command lines work as they are: `weft FILE ARGS…` is
`weft run FILE ARGS…`, and the flags above have wasmtime's spellings.

Exit status: the program's proc_exit(N) code (0 when _start returns);
134 on a trap (message and Wasm backtrace on stderr), as wasmtime;
1 when the module is rejected; 2 on a usage error.

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
  cmd->add_option("--tcplisten", args->tcp_listen,
                  "Listen on HOST:PORT and hand the socket to the program as fd 3, 4, … in order, before the --dir "
                  "preopens (as wasmtime); port 0 picks a free port and prints it (repeatable)")
      ->type_name("HOST:PORT")
      ->allow_extra_args(false);
  cmd->add_option("--argv0", args->argv0, "The program's argv[0] (default: FILE's base name)")->type_name("NAME");
  cmd->add_option("--timeout", args->timeout,
                  "Stop the program after DURATION (500ms, 10s, 1m; a bare number is seconds): it traps "
                  "\"interrupted\" and weft exits 134 (as -W timeout=)")
      ->type_name("DURATION");
  cmd->add_option("--profile", args->profile,
                  "perfmap: name the JIT's code in /tmp/perf-PID.map for `perf report` (as wasmtime's --profile=perfmap)")
      ->type_name("perfmap");
  cmd->add_option("--preload", args->preloads,
                  "Instantiate the module at PATH first and make its exports importable as module NAME "
                  "(repeatable, in order)")
      ->type_name("NAME=PATH")
      ->allow_extra_args(false);
  cmd->add_option("-W,--wasm", args->wasm_options,
                  "wasmtime's Wasm options: fuel, max-memory-size, max-table-elements, max-wasm-stack, simd, "
                  "stack-switching (-W help describes them)")
      ->type_name("KEY[=VAL][,…]")
      ->allow_extra_args(false);
  cmd->add_option("-S,--wasi", args->wasi_options,
                  "wasmtime's WASI options: inherit-env, tcplisten (-S help lists them)")
      ->type_name("KEY[=VAL][,…]")
      ->allow_extra_args(false);
  cmd->add_flag("-v,--tier-stats", args->tier_stats,
                "After the run, print the tier to stderr and, for the JIT, each function it left to the "
                "interpreter and why");
  add_tier_option(*cmd, args->tier);
  add_limit_options(*cmd, args->limits);
  cmd->add_option("file", args->file, "Module file (.wasm binary or .wat text)");
  cmd->add_option("args", args->args, "Program arguments (argv[1..]), or with --invoke the function's arguments");
  // Options go before FILE; everything after it is an argument (as in wasmtime).
  cmd->positionals_at_end(true);
  cmd->footer(kRunFooter);
  cmd->callback([args, &exit_code] { exit_code = run_module(*args); });
}

}  // namespace weft::cli
