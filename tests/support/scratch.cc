// tests/support/scratch.h: scratch directories and CLI runs.
#include "tests/support/scratch.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace weft::test {

namespace fs = std::filesystem;

ScratchDir::ScratchDir(const std::string& prefix) {
  const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string name = prefix;
  if (info) name += std::string("_") + info->test_suite_name() + "_" + info->name();
  for (char& c : name)
    if (c == '/') c = '_';  // parameterised names: Exec/Suite, Name/Tier
  // The process id too: two test runs on one machine (the native and the
  // sanitizer or AArch64 builds, say) run the same test at the same time, and
  // one must not remove or overwrite the other's files.
  name += "_" + std::to_string(::getpid());
  path_ = fs::path(::testing::TempDir()) / name;
  std::error_code ec;
  fs::remove_all(path_, ec);
  fs::create_directories(path_);
}

ScratchDir::~ScratchDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

fs::path ScratchDir::write(const std::string& name, const std::string& contents) const {
  fs::path file = path_ / name;
  std::ofstream(file, std::ios::binary) << contents;
  return file;
}

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string shell_quote(const fs::path& path) { return "'" + path.string() + "'"; }

CliResult run_cli(const std::string& cli, const std::string& args, const fs::path& dir) {
  const fs::path out = dir / "stdout", err = dir / "stderr";
  const std::string command = "cd " + shell_quote(dir) + " && " + shell_quote(cli) + " " + args +
                              " </dev/null >" + shell_quote(out) + " 2>" + shell_quote(err);
  const int status = std::system(command.c_str());
  CliResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

}  // namespace weft::test
