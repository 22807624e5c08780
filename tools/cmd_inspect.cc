// `weft inspect --dispatch FILE` — instantiates a module (imports from the
// spectest module only) and prints every suspension point's event dispatch
// table: its tags, table size, multiplier and probe count.
#include <cinttypes>
#include <cstdio>
#include <memory>
#include <string>

#include "tools/cli.h"

namespace weft::cli {

namespace {

int inspect_dispatch(const std::string& file) {
  if (auto problem = check_input_file(file)) return usage_error(*problem);
  Engine engine;
  Result<WasmModule> module = WasmModule::from_file(engine, file);
  if (!module.ok()) return report_error(module.error(), file);
  Store store(engine);
  Linker linker;
  store.define_spectest(linker);
  // Tables are built at instantiation (tag identities are known then), so the
  // module is instantiated; its start function, if any, runs.
  Result<Instance> instance = store.instantiate(*module, linker);
  if (!instance.ok()) return report_error(instance.error(), file);
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

}  // namespace

void add_inspect_command(CLI::App& app, int& exit_code) {
  auto file = std::make_shared<std::string>();
  auto dispatch = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand("inspect", "Show internal tables of a module (fiber extension)");
  cmd->add_flag("--dispatch", *dispatch, "Print every suspension point's perfect-hash event dispatch table");
  cmd->add_option("file", *file, "Module file (.wasm or .wat)")->required();
  cmd->callback([file, dispatch, &exit_code] {
    if (!*dispatch) {
      exit_code = usage_error("inspect: choose what to show (--dispatch)");
      return;
    }
    exit_code = inspect_dispatch(*file);
  });
}

}  // namespace weft::cli
