// `weft wast FILE…` — runs spec-test scripts and prints one line per file plus
// a summary; exits 0 only if every check of every file passed.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "tools/cli.h"
#include "tools/wast_runner.h"

namespace weft::cli {

namespace {

struct WastArgs {
  std::vector<std::string> files;
  std::string tier = "jit";
  bool quiet = false;
  bool verbose = false;
  bool expect_fail = false;
  bool no_fallback = false;
  LimitArgs limits;
};

constexpr size_t kMaxFailureDetails = 20;  // per file, unless --verbose

// A script that could not be read or parsed: "  FILE:LINE:COLUMN: parse error: MESSAGE"
// (as much of the location as is known), printed in every mode — it is the
// only explanation of the file's failure, and -q or -v must not drop it.
void print_script_error(const std::string& file, const tools::WastFailure& error) {
  std::string where = file;
  if (error.line != 0) where += ":" + std::to_string(error.line);
  if (error.line != 0 && error.column != 0) where += ":" + std::to_string(error.column);
  std::printf("  %s: %s error: %s\n", where.c_str(), error.command.c_str(), error.message.c_str());
}

void print_details(const std::string& file, const tools::WastReport& report, const WastArgs& args) {
  if (args.verbose) {
    for (const std::string& line : report.trace) std::printf("  %s:%s\n", file.c_str(), line.c_str());
    return;
  }
  size_t shown = 0;
  for (const tools::WastFailure& f : report.failures) {
    if (f.command == "parse") continue;  // print_parse_failures, in every mode
    if (shown++ == kMaxFailureDetails) {
      std::printf("  ... and %zu more failures (-v shows all)\n", report.failures.size() - kMaxFailureDetails);
      break;
    }
    std::string where = file + ":" + std::to_string(f.line);
    if (f.column != 0) where += ":" + std::to_string(f.column);
    std::printf("  %s: %s: %s\n", where.c_str(), f.command.c_str(), f.message.c_str());
  }
}

// Commands that did not parse, in every mode: like a script that does not
// parse, their message and line:column are the only explanation.
void print_parse_failures(const std::string& file, const tools::WastReport& report) {
  for (const tools::WastFailure& f : report.failures)
    if (f.command == "parse") print_script_error(file, f);
}

int run_wast_files(const WastArgs& args) {
  for (const std::string& file : args.files)
    if (auto problem = check_input_file(file)) return usage_error(*problem);

  tools::WastOptions options;
  options.config = make_config(args.tier, args.limits);
  options.trace = args.verbose;

  uint64_t passed = 0, failed = 0;
  std::vector<std::string> passing_files;
  for (const std::string& file : args.files) {
    tools::WastReport report = tools::run_wast_file(file, options);
    passed += report.passed;
    failed += report.failed;
    // --no-fallback: a function the JIT left to the interpreter fails the file.
    const bool fell_back = args.no_fallback && report.tier.tier == Tier::Jit && report.tier.jit_fallbacks > 0;
    if (fell_back) ++failed;
    const bool ok = report.ok() && !fell_back;
    if (ok) passing_files.push_back(file);
    if (report.script_error) print_script_error(file, *report.script_error);
    print_parse_failures(file, report);
    if (!args.quiet) print_details(file, report, args);
    std::printf("%s %s: %u passed, %u failed\n", ok ? "PASS" : "FAIL", file.c_str(), report.passed,
                report.failed + (fell_back ? 1 : 0));
    if (report.tier.tier == Tier::Jit) {
      // Progress of the JIT: how much of the file's code it compiled.
      std::printf("jit %s: %u functions compiled, %u fell back to the interpreter\n", file.c_str(),
                  report.tier.jit_compiled, report.tier.jit_fallbacks);
      if (args.verbose || fell_back)
        for (const std::string& reason : report.tier.fallback_reasons) std::printf("  fallback: %s\n", reason.c_str());
    }
    std::fflush(stdout);
  }
  std::printf("spec: %llu passed, %llu failed\n", (unsigned long long)passed, (unsigned long long)failed);

  if (!args.expect_fail) return failed == 0 ? kExitOk : kExitFailure;
  // Expected-failure mode: the list may only shrink, so a file that now
  // passes must be taken off it.
  for (const std::string& file : passing_files)
    std::fprintf(stderr,
                 "error: %s passed but is expected to fail; remove it from the expected-failure list "
                 "(spec-tests/%s)\n",
                 file.c_str(), args.tier == "jit" ? "jit.failures" : "interp.failures");
  if (passing_files.empty()) std::printf("expected failure: ok\n");
  return passing_files.empty() ? kExitOk : kExitFailure;
}

}  // namespace

void add_wast_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<WastArgs>();
  CLI::App* cmd = app.add_subcommand("wast", "Run WebAssembly spec-test scripts (.wast)");
  cmd->add_option("files", args->files, "Script files")->required();
  add_tier_option(*cmd, args->tier);
  add_limit_options(*cmd, args->limits);
  cmd->add_flag("-q,--quiet", args->quiet, "Print only the per-file lines, read/parse errors and the summary");
  cmd->add_flag("-v,--verbose", args->verbose, "Print every command's outcome, incl. rejection messages");
  cmd->add_flag("--no-fallback", args->no_fallback,
                "With --tier=jit: a file fails if any of its functions fell back to the interpreter");
  cmd->add_flag("--expect-fail", args->expect_fail,
                "Succeed only if every file has a failing check (for expected-failure lists)");
  cmd->callback([args, &exit_code] { exit_code = run_wast_files(*args); });
}

}  // namespace weft::cli
