// The `weft` command-line tool: parses the command line and dispatches to one
// subcommand (cmd_*.cc). All real work happens in the libraries.
#include <cstdio>
#include <exception>
#include <string>

#include "tools/cli.h"

int main(int argc, char** argv) {
  using namespace weft::cli;
  CLI::App app{"weft — a WebAssembly runtime with fiber-oriented stack switching", "weft"};
  app.set_version_flag("--version", std::string("weft ") + WEFT_VERSION);
  app.require_subcommand(1);
  app.fallthrough(false);
  app.failure_message([](const CLI::App*, const CLI::Error& e) {
    return "error: " + std::string(e.what()) + "\nRun with --help for more information.\n";
  });

  int exit_code = kExitOk;
  add_run_command(app, exit_code);
  add_wast_command(app, exit_code);
  add_validate_command(app, exit_code);
  add_wat2wasm_command(app, exit_code);
  add_inspect_command(app, exit_code);

  // CLI11 reports an unknown command only as "a subcommand is required".
  if (argc > 1 && argv[1][0] != '-') {
    bool known = false;
    std::string names;
    for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
      known = known || sub->get_name() == argv[1];
      names += (names.empty() ? "" : ", ") + sub->get_name();
    }
    if (!known) return usage_error(std::string("unknown command '") + argv[1] + "' (commands: " + names + "; see weft --help)");
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? kExitOk : kExitUsage;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: internal error: %s\n", e.what());
    return kExitFailure;
  }
  return exit_code;
}
