// `weft wat2wasm IN [-o OUT]` — translates the text format to the binary
// format, validating the module first unless --no-check.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "binary/writer.h"
#include "text/text.h"
#include "tools/cli.h"

namespace weft::cli {

namespace {

struct Wat2WasmArgs {
  std::string input;
  std::string output;
  bool no_check = false;
};

int wat2wasm(const Wat2WasmArgs& a) {
  Result<std::string> source = read_file(a.input);
  if (!source.ok()) return usage_error(source.error().message);
  Result<Module> module = text::parse_module(*source);
  if (!module.ok()) return report_error(module.error(), a.input);
  if (!a.no_check) {
    Engine engine;
    Result<WasmModule> validated = WasmModule::from_ir(engine, *module);
    if (!validated.ok()) return report_error(validated.error(), a.input);
  }
  std::vector<uint8_t> bytes = binary::write_module(*module);

  std::string output = a.output;
  if (output.empty()) output = std::filesystem::path(a.input).replace_extension(".wasm").string();
  std::ofstream out(output, std::ios::binary | std::ios::trunc);
  if (!out) return failure("cannot write '" + output + "'");
  out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  out.close();
  if (!out) return failure("cannot write '" + output + "'");
  return kExitOk;
}

}  // namespace

void add_wat2wasm_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<Wat2WasmArgs>();
  CLI::App* cmd = app.add_subcommand("wat2wasm", "Translate a .wat text module to a .wasm binary");
  cmd->add_option("input", args->input, "Text module (.wat)")->required();
  cmd->add_option("-o,--output", args->output, "Output file (default: INPUT with the extension .wasm)");
  cmd->add_flag("--no-check", args->no_check, "Do not validate the module before writing it");
  cmd->callback([args, &exit_code] { exit_code = wat2wasm(*args); });
}

}  // namespace weft::cli
