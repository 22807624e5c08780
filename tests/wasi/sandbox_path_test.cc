// resolve_beneath: guest paths resolve inside the starting directory or fail
// with ENOTCAPABLE — "..", absolute paths and symlinks (relative, absolute,
// chained, looping) can never name anything outside it.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "tests/support/scratch.h"
#include "wasi/sandbox_path.h"

namespace {

namespace fs = std::filesystem;
using weft::wasi::Errno;
using weft::wasi::FinalSymlink;
using weft::wasi::ResolvedPath;
using weft::wasi::resolve_beneath;

class SandboxPath : public ::testing::Test {
 protected:
  weft::test::ScratchDir scratch_{"weft_sandbox"};  // removed after TearDown
  void SetUp() override {
    root_ = top_ / "root";
    fs::create_directories(root_ / "a" / "b");
    std::ofstream(top_ / "outside.txt") << "outside";
    std::ofstream(root_ / "file") << "f";
    std::ofstream(root_ / "a" / "b" / "deep") << "d";
    fs::create_symlink("..", root_ / "a" / "up");              // → root: fine
    fs::create_symlink("../..", root_ / "a" / "out");          // → top: escape
    fs::create_symlink("/etc", root_ / "abs");                 // absolute: escape
    fs::create_symlink("a", root_ / "dirlink");
    fs::create_symlink("a/up/a/out", root_ / "chain");         // ends outside
    fs::create_symlink("loop2", root_ / "loop1");
    fs::create_symlink("loop1", root_ / "loop2");
    fs::create_symlink("file", root_ / "filelink");
    fd_ = ::open(root_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    ASSERT_GE(fd_, 0);
  }
  void TearDown() override { ::close(fd_); }

  Errno resolve(const std::string& path, FinalSymlink follow, ResolvedPath& out) {
    return resolve_beneath(fd_, path, follow, out);
  }
  Errno resolve(const std::string& path, FinalSymlink follow = FinalSymlink::follow) {
    ResolvedPath out;
    return resolve(path, follow, out);
  }
  // The host inode of what `path` resolved to (the final name is not followed).
  ino_t inode_of(const std::string& path, FinalSymlink follow = FinalSymlink::follow) {
    ResolvedPath out;
    EXPECT_EQ(resolve(path, follow, out), Errno::success) << path;
    struct stat st;
    if (::fstatat(out.dir_fd, out.name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) return 0;
    return st.st_ino;
  }
  static ino_t host_inode(const fs::path& p) {
    struct stat st;
    return ::lstat(p.c_str(), &st) == 0 ? st.st_ino : 0;
  }

  const fs::path& top_ = scratch_.path();
  fs::path root_;
  int fd_ = -1;
};

TEST_F(SandboxPath, PlainPathsResolveToParentAndName) {
  ResolvedPath out;
  ASSERT_EQ(resolve("a/b/deep", FinalSymlink::no_follow, out), Errno::success);
  EXPECT_EQ(out.name, "deep");
  EXPECT_TRUE(out.owned_dir.valid());
  EXPECT_FALSE(out.must_be_directory);
  EXPECT_EQ(inode_of("a/b/deep"), host_inode(root_ / "a" / "b" / "deep"));
  EXPECT_EQ(inode_of("./a//b/./deep"), host_inode(root_ / "a" / "b" / "deep"));
  EXPECT_EQ(inode_of("a/b/../../file"), host_inode(root_ / "file"));
  ASSERT_EQ(resolve("file", FinalSymlink::no_follow, out), Errno::success);
  EXPECT_EQ(out.dir_fd, fd_);  // the starting directory itself, not a copy
  EXPECT_FALSE(out.owned_dir.valid());
}

TEST_F(SandboxPath, DotAndDotDotInside) {
  ResolvedPath out;
  ASSERT_EQ(resolve(".", FinalSymlink::no_follow, out), Errno::success);
  EXPECT_EQ(out.name, ".");
  EXPECT_EQ(inode_of("."), host_inode(root_));
  EXPECT_EQ(inode_of("a/.."), host_inode(root_));
  EXPECT_EQ(inode_of("a/b/.."), host_inode(root_ / "a"));
  ASSERT_EQ(resolve("a/b/", FinalSymlink::no_follow, out), Errno::success);
  EXPECT_EQ(out.name, "b");
  EXPECT_TRUE(out.must_be_directory);
}

TEST_F(SandboxPath, EscapesAreNotCapable) {
  for (const char* path : {"..", "../outside.txt", "a/../..", "a/b/../../../outside.txt", "/", "/etc/passwd",
                           "//etc", "./../root/file"}) {
    EXPECT_EQ(resolve(path), Errno::notcapable) << path;
    EXPECT_EQ(resolve(path, FinalSymlink::no_follow), Errno::notcapable) << path;
  }
}

TEST_F(SandboxPath, SymlinksInside) {
  EXPECT_EQ(inode_of("a/up/file"), host_inode(root_ / "file"));
  EXPECT_EQ(inode_of("dirlink/b/deep"), host_inode(root_ / "a" / "b" / "deep"));
  EXPECT_EQ(inode_of("filelink"), host_inode(root_ / "file"));
  // Not following the final link names the link itself.
  EXPECT_EQ(inode_of("filelink", FinalSymlink::no_follow), host_inode(root_ / "filelink"));
  // A trailing slash follows even without FinalSymlink::follow.
  EXPECT_EQ(inode_of("dirlink/", FinalSymlink::no_follow), host_inode(root_ / "a"));
}

TEST_F(SandboxPath, SymlinksLeadingOutAreNotCapable) {
  EXPECT_EQ(resolve("a/out/outside.txt"), Errno::notcapable);
  EXPECT_EQ(resolve("a/out"), Errno::notcapable);
  EXPECT_EQ(resolve("a/out/", FinalSymlink::no_follow), Errno::notcapable);
  EXPECT_EQ(resolve("abs"), Errno::notcapable);
  EXPECT_EQ(resolve("abs/passwd", FinalSymlink::no_follow), Errno::notcapable);
  EXPECT_EQ(resolve("chain"), Errno::notcapable);
  EXPECT_EQ(resolve("dirlink/out/root/file"), Errno::notcapable);
  // Without following, the final link is only named, never entered.
  ResolvedPath out;
  EXPECT_EQ(resolve("a/out", FinalSymlink::no_follow, out), Errno::success);
  EXPECT_EQ(out.name, "out");
  EXPECT_EQ(resolve("abs", FinalSymlink::no_follow, out), Errno::success);
}

TEST_F(SandboxPath, ErrorsFromTheWalk) {
  EXPECT_EQ(resolve("loop1"), Errno::loop);
  EXPECT_EQ(resolve("loop1/x", FinalSymlink::no_follow), Errno::loop);
  EXPECT_EQ(resolve("missing/x"), Errno::noent);
  EXPECT_EQ(resolve("file/x"), Errno::notdir);
  EXPECT_EQ(resolve("file/"), Errno::notdir);
  EXPECT_EQ(resolve(""), Errno::noent);
  EXPECT_EQ(resolve(std::string("a\0b", 3)), Errno::inval);
  EXPECT_EQ(resolve("bad\xff"), Errno::ilseq);
  EXPECT_EQ(resolve("\xc0\xaf"), Errno::ilseq);  // overlong '/'
  EXPECT_EQ(resolve("caf\xc3\xa9"), Errno::success);  // valid UTF-8, absent: fine
  // A missing final name resolves (e.g. for creating it).
  ResolvedPath out;
  EXPECT_EQ(resolve("a/new-file", FinalSymlink::follow, out), Errno::success);
  EXPECT_EQ(out.name, "new-file");
}

}  // namespace
