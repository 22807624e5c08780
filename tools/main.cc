// The `weft` command-line tool: parses the command line and dispatches to one
// subcommand (cmd_*.cc), `run` when none is named. All real work happens in
// the libraries.
#include <cstdio>
#include <exception>
#include <filesystem>
#include <string>
#include <vector>

#include "tools/cli.h"

int main(int argc, char** argv) {
  using namespace weft::cli;
  CLI::App app{"weft — a WebAssembly runtime with fiber-oriented stack switching", "weft"};
  app.set_version_flag("-V,--version", std::string("weft ") + WEFT_VERSION);
  app.require_subcommand(1);
  app.footer("weft FILE [ARGS...] and weft [RUN OPTIONS] FILE [ARGS...] mean weft run ..., as in wasmtime.");
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

  // As in wasmtime, `run` is the default command: `weft FILE ARGS…` and
  // `weft --dir . FILE` mean `weft run …`. A bare word that names neither a
  // command nor a file is reported as a command typo, not as a missing module.
  std::vector<char*> args(argv, argv + argc);
  if (argc > 1) {
    const std::string first = argv[1];
    std::string names;
    bool is_command = false;
    for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
      is_command = is_command || sub->get_name() == first;
      names += (names.empty() ? "" : ", ") + sub->get_name();
    }
    const bool top_level_flag = first == "--help" || first == "-h" || first == "--version" || first == "-V";
    std::error_code no_such_file;
    const bool looks_like_file =
        first.find_first_of("./") != std::string::npos || std::filesystem::exists(first, no_such_file);
    if (!is_command && !top_level_flag) {
      if ((first.empty() || first[0] != '-') && !looks_like_file)
        return usage_error("unknown command '" + first + "' (commands: " + names +
                           "; or a module file, but there is none by that name; see weft --help)");
      static char run[] = "run";
      args.insert(args.begin() + 1, run);
    }
  }

  try {
    app.parse(int(args.size()), args.data());
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? kExitOk : kExitUsage;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: internal error: %s\n", e.what());
    return kExitFailure;
  }
  return exit_code;
}
