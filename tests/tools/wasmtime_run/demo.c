// `demo FROM TO` copies a file: the C program of wasmtime's WASI tutorial
// (docs/WASI-tutorial.md), written anew with the same messages and exit codes.
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s <from> <to>\n", argv[0]);
    return 1;
  }
  int from = open(argv[1], O_RDONLY);
  if (from < 0) {
    fprintf(stderr, "error opening input %s: %s\n", argv[1], strerror(errno));
    return 1;
  }
  int to = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0660);
  if (to < 0) {
    fprintf(stderr, "error opening output %s: %s\n", argv[2], strerror(errno));
    return 1;
  }
  char buf[4096];
  ssize_t n;
  while ((n = read(from, buf, sizeof buf)) > 0) {
    for (ssize_t done = 0; done < n;) {
      ssize_t m = write(to, buf + done, (size_t)(n - done));
      if (m < 0) {
        fprintf(stderr, "write error: %s\n", strerror(errno));
        return 1;
      }
      done += m;
    }
  }
  if (n < 0) {
    fprintf(stderr, "read error: %s\n", strerror(errno));
    return 1;
  }
  return 0;
}
