// Component-by-component path resolution beneath a directory descriptor.
//
// Every directory on the way is opened with O_NOFOLLOW relative to the previous
// one, and ".." pops our own stack of opened directories instead of asking the
// file system, so the walk can never climb above the starting directory. A
// symlink met on the way is read with readlinkat and its target spliced into
// the remaining path, then resolved by the same rules from the symlink's own
// directory: relative targets may move around inside the tree, absolute ones
// are refused. (openat2's RESOLVE_BENEATH does the same in the kernel, but the
// WASI operations other than open — mkdirat, unlinkat, renameat, … — need the
// parent directory and final name anyway, which this walk produces directly.)
#include "wasi/sandbox_path.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <vector>

namespace weft::wasi {

namespace {

// Linux's own limit on symlinks followed during one lookup.
constexpr int kMaxSymlinks = 40;

bool valid_utf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    uint8_t c = uint8_t(s[i]);
    size_t len;
    uint32_t cp;
    if (c < 0x80) { ++i; continue; }
    if ((c & 0xE0) == 0xC0) { len = 2; cp = c & 0x1F; }
    else if ((c & 0xF0) == 0xE0) { len = 3; cp = c & 0x0F; }
    else if ((c & 0xF8) == 0xF0) { len = 4; cp = c & 0x07; }
    else return false;
    if (i + len > s.size()) return false;
    for (size_t k = 1; k < len; ++k) {
      uint8_t cc = uint8_t(s[i + k]);
      if ((cc & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (cc & 0x3F);
    }
    // Overlong encodings, surrogates and values past U+10FFFF are invalid.
    if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
        (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF)
      return false;
    i += len;
  }
  return true;
}

}  // namespace

int read_symlink(int dir, const std::string& name, std::string& target) {
  std::string buf(256, '\0');
  for (;;) {
    ssize_t n = ::readlinkat(dir, name.c_str(), buf.data(), buf.size());
    if (n < 0) return errno;
    if (size_t(n) < buf.size()) {
      buf.resize(size_t(n));
      target = std::move(buf);
      return 0;
    }
    if (buf.size() >= (1u << 20)) return ENAMETOOLONG;
    buf.resize(buf.size() * 2);
  }
}

Errno resolve_beneath(int root_fd, std::string_view path, FinalSymlink final_symlink, ResolvedPath& out) {
  if (path.empty()) return Errno::noent;
  if (path.find('\0') != std::string_view::npos) return Errno::inval;
  if (!valid_utf8(path)) return Errno::ilseq;
  if (path.front() == '/') return Errno::notcapable;

  std::vector<UniqueFd> stack;  // directories entered below root_fd
  auto current = [&] { return stack.empty() ? root_fd : stack.back().get(); };
  auto finish = [&](std::string name, bool must_be_directory) {
    if (stack.empty()) {
      out.owned_dir = UniqueFd();
      out.dir_fd = root_fd;
    } else {
      out.owned_dir = std::move(stack.back());
      out.dir_fd = out.owned_dir.get();
    }
    out.name = std::move(name);
    out.must_be_directory = must_be_directory;
  };

  std::string pending(path);
  size_t pos = 0;
  int symlinks = 0;
  for (;;) {
    while (pos < pending.size() && pending[pos] == '/') ++pos;
    if (pos == pending.size()) {
      // Only slashes were left: the path names the current directory.
      finish(".", false);
      return Errno::success;
    }
    size_t end = pending.find('/', pos);
    if (end == std::string::npos) end = pending.size();
    std::string component = pending.substr(pos, end - pos);
    pos = end;
    size_t next = pos;
    while (next < pending.size() && pending[next] == '/') ++next;
    const bool last = next == pending.size();
    const bool slash_after = pos < pending.size();

    if (component == ".") {
      if (last) {
        finish(".", false);
        return Errno::success;
      }
      continue;
    }
    if (component == "..") {
      if (stack.empty()) return Errno::notcapable;
      stack.pop_back();
      if (last) {
        finish(".", false);
        return Errno::success;
      }
      continue;
    }

    if (last && !slash_after && final_symlink == FinalSymlink::no_follow) {
      finish(std::move(component), false);
      return Errno::success;
    }

    // An intermediate directory (or a final one that may be a symlink to follow).
    std::string target;
    if (!last) {
      int fd = ::openat(current(), component.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (fd >= 0) {
        stack.emplace_back(fd);
        continue;
      }
      int err = errno;
      // O_PATH|O_NOFOLLOW|O_DIRECTORY reports a symlink as ENOTDIR (or ELOOP).
      if (err != ENOTDIR && err != ELOOP) return errno_from_host(err);
      if (read_symlink(current(), component, target) != 0) return errno_from_host(err);
    } else {
      int err = read_symlink(current(), component, target);
      if (err != 0) {
        // Not a symlink (EINVAL) or absent (ENOENT, e.g. a file about to be created).
        if (err != EINVAL && err != ENOENT) return errno_from_host(err);
        if (slash_after && err == EINVAL) {
          struct stat st;
          if (::fstatat(current(), component.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISDIR(st.st_mode))
            return Errno::notdir;
        }
        finish(std::move(component), slash_after);
        return Errno::success;
      }
    }

    // A symlink: continue with its target followed by the rest of the path.
    if (++symlinks > kMaxSymlinks) return Errno::loop;
    if (target.empty()) return Errno::noent;
    if (target.front() == '/') return Errno::notcapable;
    if (target.find('\0') != std::string::npos) return Errno::inval;
    pending = target + pending.substr(pos);
    pos = 0;
  }
}

}  // namespace weft::wasi
