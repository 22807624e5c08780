// Files and processes for tests that drive the `weft` binary or the host file
// system: a scratch directory per test, reading a file whole, and running the
// CLI with its output captured.
#pragma once

#include <filesystem>
#include <string>

namespace weft::test {

// A fresh, empty directory for the running test, removed again on
// destruction: <gtest TempDir>/<prefix>_<Suite>_<Name>[_<Tier>], unique per
// test because ctest runs the tests of one binary in parallel.
class ScratchDir {
 public:
  explicit ScratchDir(const std::string& prefix);
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  // Writes `contents` to path()/name and returns that path.
  std::filesystem::path write(const std::string& name, const std::string& contents) const;

 private:
  std::filesystem::path path_;
};

// The whole file ("" when it cannot be read).
std::string slurp(const std::filesystem::path& path);

// `path` single-quoted for the shell.
std::string shell_quote(const std::filesystem::path& path);

struct CliResult {
  int exit_code = -1;  // a signal shows as 128 + N
  std::string out, err;
};

// Runs `<cli> ARGS` (ARGS already shell-quoted) in `dir` with stdin from
// /dev/null; its stdout and stderr go through dir/stdout and dir/stderr.
CliResult run_cli(const std::string& cli, const std::string& args, const std::filesystem::path& dir);

}  // namespace weft::test
