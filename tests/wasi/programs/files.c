/* Files in the current directory (a fresh temp dir, preopened as "." under
 * weft): create, write, read, seek, stat, truncate, pread/pwrite, append,
 * rename, unlink, mkdir/rmdir, readdir, and the errors of each. */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"

static int compare(const void* a, const void* b) { return strcmp(*(char* const*)a, *(char* const*)b); }

/* Lists a directory sorted (readdir order is the file system's). */
static void list(const char* path) {
  DIR* d = opendir(path);
  if (!d) {
    printf("opendir %s: %s\n", path, errname(errno));
    return;
  }
  char* names[64];
  int n = 0;
  struct dirent* e;
  while ((e = readdir(d)) && n < 64) {
    char kind = e->d_type == DT_DIR ? 'd' : e->d_type == DT_REG ? 'f' : e->d_type == DT_LNK ? 'l' : '?';
    char* s = malloc(strlen(e->d_name) + 3);
    sprintf(s, "%s/%c", e->d_name, kind);
    names[n++] = s;
  }
  closedir(d);
  qsort(names, (size_t)n, sizeof(char*), compare);
  printf("ls %s:", path);
  for (int i = 0; i < n; ++i) {
    printf(" %s", names[i]);
    free(names[i]);
  }
  printf("\n");
}

static void print_stat(const char* path) {
  struct stat st;
  if (stat(path, &st) != 0) {
    printf("stat %s: %s\n", path, errname(errno));
    return;
  }
  /* (A directory's size depends on the file system.) */
  printf("stat %s: size=%lld dir=%d reg=%d nlink=%d\n", path, S_ISREG(st.st_mode) ? (long long)st.st_size : -1LL,
         S_ISDIR(st.st_mode) ? 1 : 0, S_ISREG(st.st_mode) ? 1 : 0, (int)st.st_nlink);
}

int main(void) {
  /* stdio streams: create, write, read back. */
  FILE* f = fopen("hello.txt", "w");
  if (!f) { printf("fopen failed: %s\n", errname(errno)); return 1; }
  for (int i = 0; i < 100; ++i) fprintf(f, "line %d: %s\n", i, "the quick brown fox");
  fclose(f);
  print_stat("hello.txt");
  f = fopen("hello.txt", "r");
  char buf[256];
  int lines = 0;
  while (fgets(buf, sizeof buf, f)) ++lines;
  printf("read %d lines, last: %s", lines, buf);
  fseek(f, 7, SEEK_SET);
  printf("at 7: [%.12s]\n", fgets(buf, sizeof buf, f) ? buf : "?");
  fseek(f, -10, SEEK_END);
  printf("ftell after SEEK_END-10: %ld\n", ftell(f));
  fclose(f);

  /* POSIX descriptors: lseek, pread/pwrite, ftruncate, fstat. */
  int fd = open("data.bin", O_RDWR | O_CREAT | O_TRUNC, 0644);
  CHECK("open data.bin", fd);
  unsigned char bytes[256];
  for (int i = 0; i < 256; ++i) bytes[i] = (unsigned char)i;
  printf("write: %zd\n", write(fd, bytes, sizeof bytes));
  printf("lseek cur: %lld\n", (long long)lseek(fd, 0, SEEK_CUR));
  printf("lseek set 100: %lld\n", (long long)lseek(fd, 100, SEEK_SET));
  unsigned char got[8];
  ssize_t r = read(fd, got, 2); /* (arguments are evaluated in no fixed order) */
  printf("read: %zd -> %d %d\n", r, got[0], got[1]);
  r = pread(fd, got, 4, 200);
  printf("pread at 200: %zd -> %d\n", r, got[3]);
  printf("pwrite at 10: %zd\n", pwrite(fd, "ABCD", 4, 10));
  printf("position unchanged: %lld\n", (long long)lseek(fd, 0, SEEK_CUR));
  r = pread(fd, got, 4, 10);
  printf("pread at 10: %zd -> %.4s\n", r, (char*)got);
  printf("lseek end+16: %lld\n", (long long)lseek(fd, 16, SEEK_END));
  printf("write past end: %zd\n", write(fd, "Z", 1));
  struct stat st;
  fstat(fd, &st);
  printf("fstat size: %lld\n", (long long)st.st_size);
  CHECK("ftruncate 50", ftruncate(fd, 50));
  fstat(fd, &st);
  printf("fstat size after truncate: %lld\n", (long long)st.st_size);
  CHECK("lseek negative", lseek(fd, -1000, SEEK_SET));
  CHECK("fsync", fsync(fd));
  CHECK("close", close(fd));
  CHECK("close again", close(fd));
  CHECK("read closed fd", read(fd, got, 1));

  /* Append mode. */
  fd = open("log.txt", O_WRONLY | O_CREAT | O_APPEND, 0644);
  write(fd, "one\n", 4);
  lseek(fd, 0, SEEK_SET);
  write(fd, "two\n", 4);
  close(fd);
  f = fopen("log.txt", "a");
  fputs("three\n", f);
  fclose(f);
  f = fopen("log.txt", "r");
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  buf[n] = 0;
  fclose(f);
  printf("log.txt: %s", buf);

  /* Errors. */
  CHECK("open missing", open("missing.txt", O_RDONLY));
  CHECK("open O_EXCL existing", open("hello.txt", O_WRONLY | O_CREAT | O_EXCL, 0644));
  CHECK("open file as dir", open("hello.txt/x", O_RDONLY));
  CHECK("open dir for writing", open(".", O_WRONLY));
  CHECK("unlink missing", unlink("missing.txt"));

  /* Directories. */
  CHECK("mkdir sub", mkdir("sub", 0755));
  CHECK("mkdir sub again", mkdir("sub", 0755));
  CHECK("mkdir sub/deeper", mkdir("sub/deeper", 0755));
  f = fopen("sub/deeper/file.txt", "w");
  fputs("nested\n", f);
  fclose(f);
  print_stat("sub");
  print_stat("sub/deeper/file.txt");
  print_stat("./sub/../sub/deeper/./file.txt");
  CHECK("rmdir non-empty", rmdir("sub"));
  CHECK("rmdir a file", rmdir("hello.txt"));
  CHECK("unlink a directory", unlink("sub"));
  list(".");
  list("sub");
  list("sub/deeper");
  list("missing");

  /* Rename and unlink. */
  CHECK("rename hello -> renamed", rename("hello.txt", "renamed.txt"));
  print_stat("hello.txt");
  print_stat("renamed.txt");
  CHECK("rename into sub", rename("renamed.txt", "sub/moved.txt"));
  CHECK("rename dir", rename("sub/deeper", "sub/deep2"));
  CHECK("rename missing", rename("nothing", "x"));
  list("sub");
  CHECK("unlink sub/moved.txt", unlink("sub/moved.txt"));
  CHECK("unlink sub/deep2/file.txt", unlink("sub/deep2/file.txt"));
  CHECK("rmdir sub/deep2", rmdir("sub/deep2"));
  CHECK("rmdir sub", rmdir("sub"));
  CHECK("unlink data.bin", unlink("data.bin"));
  CHECK("unlink log.txt", unlink("log.txt"));
  list(".");

  /* Many files in one directory: readdir across several fd_readdir buffers. */
  mkdir("many", 0755);
  for (int i = 0; i < 300; ++i) {
    char name[64];
    snprintf(name, sizeof name, "many/file-with-a-long-name-%03d.txt", i);
    close(open(name, O_WRONLY | O_CREAT, 0644));
  }
  DIR* d = opendir("many");
  int count = 0;
  struct dirent* e;
  while ((e = readdir(d))) count += e->d_name[0] != '.';
  closedir(d);
  printf("many: %d entries\n", count);
  return 0;
}
