/* Attempts to leave the preopened directory (run under weft only, with the
 * temp dir preopened as "."): every one must fail with ENOTCAPABLE, while the
 * same operations inside the directory succeed. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __wasi__
#include <wasi/api.h>
#endif

#include "common.h"

int main(void) {
  struct stat st;
  mkdir("sub", 0755);
  mkdir("sub/inner", 0755);
  close(open("sub/inside.txt", O_WRONLY | O_CREAT, 0644));

  /* ".." above the preopen, directly and after descending. */
  CHECK("open ../outside", open("../outside", O_RDONLY));
  CHECK("open sub/../../outside", open("sub/../../outside", O_RDONLY));
  CHECK("create ../created", open("../created", O_WRONLY | O_CREAT, 0644));
  CHECK("mkdir ../newdir", mkdir("../newdir", 0755));
  CHECK("stat ..", stat("..", &st));
  CHECK("stat sub/inner/../../..", stat("sub/inner/../../..", &st));
  CHECK("rename into ..", rename("sub/inside.txt", "../stolen.txt"));
  CHECK("link into ..", link("sub/inside.txt", "../linked.txt"));
  CHECK("unlink ../x", unlink("../x"));
  CHECK("rmdir ..", rmdir(".."));
  CHECK("opendir ..", open("..", O_RDONLY | O_DIRECTORY));

  /* Absolute symlinks are refused when created (EPERM, as in wasmtime);
   * following one planted by the host is tested in wasi_tests
   * (WasiApi.PathEscapesAreNotCapable). Relative ones pointing out may be
   * created, but not followed. */
  CHECK("symlink abs -> /etc", symlink("/etc", "abs"));
  CHECK("lstat abs (not created)", lstat("abs", &st));
  CHECK("symlink up -> ..", symlink("..", "up"));
  CHECK("symlink deep -> sub/inner/../../..", symlink("sub/inner/../../..", "deep"));
  CHECK("symlink sub/chain -> ../up", symlink("../up", "sub/chain"));
  CHECK("open up/outside", open("up/outside", O_RDONLY));
  CHECK("opendir up", open("up", O_RDONLY | O_DIRECTORY));
  CHECK("open deep/x", open("deep/x", O_RDONLY));
  CHECK("open sub/chain/x", open("sub/chain/x", O_RDONLY));
  CHECK("create through up", open("up/created", O_WRONLY | O_CREAT, 0644));
  CHECK("mkdir through up", mkdir("up/newdir", 0755));
  CHECK("symlink loop a -> b", symlink("b", "a"));
  CHECK("symlink loop b -> a", symlink("a", "b"));
  CHECK("open loop", open("a", O_RDONLY));

  /* Inside the preopen everything works. */
  CHECK("open sub/inner/../inside.txt", open("sub/inner/../inside.txt", O_RDONLY));
  CHECK("stat .", stat(".", &st));
  CHECK("stat sub/..", stat("sub/..", &st));

#ifdef __wasi__
  /* Raw WASI calls on the preopen (fd 3), bypassing libc's path handling. */
  __wasi_fd_t fd;
  __wasi_errno_t e = __wasi_path_open(3, 0, "/etc/passwd", 0, __WASI_RIGHTS_FD_READ, 0, 0, &fd);
  printf("raw path_open /etc/passwd: %s\n", errname(e));
  e = __wasi_path_open(3, 0, "..", __WASI_OFLAGS_DIRECTORY, 0, 0, 0, &fd);
  printf("raw path_open ..: %s\n", errname(e));
  e = __wasi_path_open(3, __WASI_LOOKUPFLAGS_SYMLINK_FOLLOW, "up", 0, 0, 0, 0, &fd);
  printf("raw path_open up (follow): %s\n", errname(e));
  e = __wasi_path_open(3, 0, "up", 0, 0, 0, 0, &fd);
  printf("raw path_open up (nofollow): %s\n", errname(e));
  e = __wasi_path_open(3, 0, "sub/inside.txt", 0, __WASI_RIGHTS_FD_READ, 0, 0, &fd);
  printf("raw path_open sub/inside.txt: %s\n", errname(e));
  if (e == 0) {
    /* A file descriptor is no directory to resolve paths from. */
    e = __wasi_path_open(fd, 0, "../inside.txt", 0, 0, 0, 0, &fd);
    printf("raw path_open from a file fd: %s\n", errname(e));
  }
  e = __wasi_path_open(3, 0, "sub", __WASI_OFLAGS_DIRECTORY, __WASI_RIGHTS_PATH_OPEN, __WASI_RIGHTS_PATH_OPEN, 0, &fd);
  printf("raw path_open sub: %s\n", errname(e));
  if (e == 0) {
    __wasi_fd_t inner;
    e = __wasi_path_open(fd, 0, "../sub/inside.txt", 0, 0, 0, 0, &inner);
    printf("raw path_open ../sub/inside.txt from sub: %s\n", errname(e));
    e = __wasi_path_open(fd, 0, "inside.txt", 0, 0, 0, 0, &inner);
    printf("raw path_open inside.txt from sub: %s\n", errname(e));
  }
  e = __wasi_path_create_directory(3, "/tmp/weft-escape");
  printf("raw path_create_directory /tmp/weft-escape: %s\n", errname(e));
  e = __wasi_path_symlink("x", 3, "/tmp/weft-escape-link");
  printf("raw path_symlink at /tmp/weft-escape-link: %s\n", errname(e));
  e = __wasi_path_unlink_file(3, "sub/\xff");
  printf("raw path_unlink_file with invalid UTF-8: %d\n", e);
#endif
  return 0;
}
