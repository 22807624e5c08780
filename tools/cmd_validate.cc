// `weft validate FILE` — decodes/parses and validates a module; prints "valid"
// or the error with its location.
#include <cstdio>
#include <memory>
#include <string>

#include "tools/cli.h"

namespace weft::cli {

namespace {

int validate_file(const std::string& file) {
  if (auto problem = check_input_file(file)) return usage_error(*problem);
  Engine engine;
  Result<WasmModule> module = load_module_file(engine, file);
  if (!module.ok()) return report_error(module.error(), file);
  std::printf("valid\n");
  return kExitOk;
}

}  // namespace

void add_validate_command(CLI::App& app, int& exit_code) {
  auto file = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand("validate", "Check that a module (.wasm or .wat) is well-formed and valid");
  cmd->add_option("file", *file, "Module file")->required();
  cmd->callback([file, &exit_code] { exit_code = validate_file(*file); });
}

}  // namespace weft::cli
