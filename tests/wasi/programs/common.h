/* Helpers shared by the WASI test programs: each is compiled twice (clang for
 * wasm32-wasi, gcc natively) and both outputs must match, so errors are printed
 * as symbolic errno names (strerror texts differ between libcs). */
#ifndef WEFT_WASI_TEST_COMMON_H
#define WEFT_WASI_TEST_COMMON_H

#include <errno.h>
#include <stdio.h>

static const char* errname(int e) {
  switch (e) {
    case 0: return "OK";
    case EACCES: return "EACCES";
    case EBADF: return "EBADF";
    case EEXIST: return "EEXIST";
    case EINVAL: return "EINVAL";
    case EISDIR: return "EISDIR";
    case ELOOP: return "ELOOP";
    case ENOENT: return "ENOENT";
    case ENOTDIR: return "ENOTDIR";
    case ENOTEMPTY: return "ENOTEMPTY";
    case EPERM: return "EPERM";
    case ESPIPE: return "ESPIPE";
    case EXDEV: return "EXDEV";
#ifdef ENOTCAPABLE
    case ENOTCAPABLE: return "ENOTCAPABLE";
#endif
    default: return "E?";
  }
}

/* Prints "what: OK" or "what: ENAME" for a call returning -1 on failure. */
#define CHECK(what, call)                                  \
  do {                                                     \
    errno = 0;                                             \
    int check_r_ = (call) < 0 ? errno : 0;                 \
    printf("%s: %s\n", what, errname(check_r_));           \
  } while (0)

#endif
