// Resolution of guest paths beneath a directory descriptor, so that no path —
// through "..", an absolute path or a symlink — can name anything outside it.
#pragma once

#include <string>
#include <string_view>

#include "wasi/abi.h"
#include "wasi/fd_table.h"

namespace weft::wasi {

// A guest path resolved to (parent directory, final component). The caller
// operates on `name` relative to `dir_fd` with the *at() calls and must never
// follow a symlink there (O_NOFOLLOW / AT_SYMLINK_NOFOLLOW): symlinks that may
// be followed have already been followed here, checked component by component.
struct ResolvedPath {
  UniqueFd owned_dir;  // the parent when it is not the starting directory itself
  int dir_fd = -1;     // owned_dir or the starting descriptor
  std::string name;    // a plain name, or "." for the directory itself; never ".."
  bool must_be_directory = false;  // the path ended in '/'
};

enum class FinalSymlink { no_follow, follow };

// Resolves `path` beneath `root_fd`. Intermediate symlinks are always followed
// (their targets resolved by the same rules); the final one only with
// FinalSymlink::follow or a trailing '/'. Errors:
//   notcapable — absolute path or symlink, or ".." above `root_fd`;
//   loop — more than 40 symlinks; noent — an empty path; notdir, acces… —
//   from the host; inval — a NUL byte; ilseq — invalid UTF-8.
Errno resolve_beneath(int root_fd, std::string_view path, FinalSymlink final_symlink, ResolvedPath& out);

// Reads the symlink `name` in `dir` into `target`; returns 0 or the host errno
// (EINVAL: `name` is not a symlink).
int read_symlink(int dir, const std::string& name, std::string& target);

}  // namespace weft::wasi
