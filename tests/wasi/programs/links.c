/* Symlinks, hard links, readlink, lstat and timestamps, all inside the
 * current directory (symlinks that stay inside a preopen are fine). */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "common.h"

int main(void) {
  FILE* f = fopen("target.txt", "w");
  fputs("through the link\n", f);
  fclose(f);
  mkdir("dir", 0755);

  CHECK("symlink to file", symlink("target.txt", "link.txt"));
  CHECK("symlink to dir", symlink("dir", "dirlink"));
  CHECK("symlink dangling", symlink("nowhere", "dangling"));
  CHECK("symlink relative up", symlink("../target.txt", "dir/up.txt"));
  CHECK("symlink exists", symlink("x", "link.txt"));
  /* A trailing slash on the new name: only an existing directory can be meant.
   * (On an existing file weft says ENOTDIR, as the wasi-testsuite's unix mode
   * requires, and Linux EEXIST: tested in wasi_tests, not here.) */
  CHECK("symlink at new/", symlink("x", "new/"));
  CHECK("symlink at dir/", symlink("x", "dir/"));
  CHECK("link at new/", link("target.txt", "new/"));
  CHECK("link at dir/", link("target.txt", "dir/"));
  /* Directories cannot be opened for writing. */
  CHECK("open dir O_RDWR|O_DIRECTORY", open("dir", O_RDWR | O_DIRECTORY));
  CHECK("open dir O_WRONLY", open("dir", O_WRONLY));
  CHECK("open dir/ O_WRONLY", open("dir/", O_WRONLY));

  char buf[128];
  ssize_t n = readlink("link.txt", buf, sizeof buf);
  printf("readlink link.txt: %.*s\n", (int)n, buf);
  n = readlink("dir/up.txt", buf, sizeof buf);
  printf("readlink dir/up.txt: %.*s\n", (int)n, buf);
  n = readlink("link.txt", buf, 4);
  printf("readlink truncated: %zd %.*s\n", n, (int)n, buf);
  CHECK("readlink of a file", readlink("target.txt", buf, sizeof buf));

  f = fopen("link.txt", "r");
  printf("read via link: %s", f && fgets(buf, sizeof buf, f) ? buf : "failed\n");
  if (f) fclose(f);
  f = fopen("dir/up.txt", "r");
  printf("read via dir/up.txt: %s", f && fgets(buf, sizeof buf, f) ? buf : "failed\n");
  if (f) fclose(f);
  f = fopen("dirlink/inside.txt", "w");
  printf("create through dirlink: %s\n", f ? "OK" : errname(errno));
  if (f) fclose(f);
  struct stat st;
  printf("dir/inside.txt exists: %d\n", stat("dir/inside.txt", &st) == 0);
  CHECK("open dangling", open("dangling", O_RDONLY));
  CHECK("open O_NOFOLLOW link", open("link.txt", O_RDONLY | O_NOFOLLOW));

  lstat("link.txt", &st);
  printf("lstat link.txt: link=%d\n", S_ISLNK(st.st_mode) ? 1 : 0);
  stat("link.txt", &st);
  printf("stat link.txt: reg=%d size=%lld\n", S_ISREG(st.st_mode) ? 1 : 0, (long long)st.st_size);
  stat("dirlink", &st);
  printf("stat dirlink: dir=%d\n", S_ISDIR(st.st_mode) ? 1 : 0);

  CHECK("link target.txt hard.txt", link("target.txt", "hard.txt"));
  stat("target.txt", &st);
  printf("nlink after link: %d\n", (int)st.st_nlink);
  CHECK("unlink target.txt", unlink("target.txt"));
  f = fopen("hard.txt", "r");
  printf("read hard.txt: %s", f && fgets(buf, sizeof buf, f) ? buf : "failed\n");
  if (f) fclose(f);
  CHECK("open link to removed target", open("link.txt", O_RDONLY));
  CHECK("unlink link.txt", unlink("link.txt"));
  CHECK("unlink dirlink (the link, not the dir)", unlink("dirlink"));
  printf("dir still a dir: %d\n", stat("dir", &st) == 0 && S_ISDIR(st.st_mode));

  /* Timestamps. */
  struct timespec times[2] = {{1000000000, 0}, {1234567890, 500000000}};
  CHECK("utimensat", utimensat(AT_FDCWD, "hard.txt", times, 0));
  stat("hard.txt", &st);
  printf("atime=%lld mtime=%lld.%09ld\n", (long long)st.st_atime, (long long)st.st_mtime, st.st_mtim.tv_nsec);
  int fd = open("hard.txt", O_RDWR);
  struct timespec only_mtime[2] = {{0, UTIME_OMIT}, {2000000000, 0}};
  CHECK("futimens", futimens(fd, only_mtime));
  fstat(fd, &st);
  printf("after futimens: atime=%lld mtime=%lld\n", (long long)st.st_atime, (long long)st.st_mtime);
  close(fd);
  /* (UTIME_NOW is not tested here: Debian's wasi-libc 2022 rejects it in libc
   * before any WASI call; the host side is covered by wasi_tests.) */
  return 0;
}
