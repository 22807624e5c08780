// Host errno → WASI errno, and WASI errno names.
#include <cerrno>
#include <cstddef>

#include "wasi/abi.h"

namespace weft::wasi {

Errno errno_from_host(int e) {
  switch (e) {
    case 0: return Errno::success;
    case E2BIG: return Errno::toobig;
    case EACCES: return Errno::acces;
    case EADDRINUSE: return Errno::addrinuse;
    case EADDRNOTAVAIL: return Errno::addrnotavail;
    case EAFNOSUPPORT: return Errno::afnosupport;
    case EAGAIN: return Errno::again;  // == EWOULDBLOCK on Linux
    case EALREADY: return Errno::already;
    case EBADF: return Errno::badf;
    case EBADMSG: return Errno::badmsg;
    case EBUSY: return Errno::busy;
    case ECANCELED: return Errno::canceled;
    case ECHILD: return Errno::child;
    case ECONNABORTED: return Errno::connaborted;
    case ECONNREFUSED: return Errno::connrefused;
    case ECONNRESET: return Errno::connreset;
    case EDEADLK: return Errno::deadlk;
    case EDESTADDRREQ: return Errno::destaddrreq;
    case EDOM: return Errno::dom;
    case EDQUOT: return Errno::dquot;
    case EEXIST: return Errno::exist;
    case EFAULT: return Errno::fault;
    case EFBIG: return Errno::fbig;
    case EHOSTUNREACH: return Errno::hostunreach;
    case EIDRM: return Errno::idrm;
    case EILSEQ: return Errno::ilseq;
    case EINPROGRESS: return Errno::inprogress;
    case EINTR: return Errno::intr;
    case EINVAL: return Errno::inval;
    case EIO: return Errno::io;
    case EISCONN: return Errno::isconn;
    case EISDIR: return Errno::isdir;
    case ELOOP: return Errno::loop;
    case EMFILE: return Errno::mfile;
    case EMLINK: return Errno::mlink;
    case EMSGSIZE: return Errno::msgsize;
    case EMULTIHOP: return Errno::multihop;
    case ENAMETOOLONG: return Errno::nametoolong;
    case ENETDOWN: return Errno::netdown;
    case ENETRESET: return Errno::netreset;
    case ENETUNREACH: return Errno::netunreach;
    case ENFILE: return Errno::nfile;
    case ENOBUFS: return Errno::nobufs;
    case ENODEV: return Errno::nodev;
    case ENOENT: return Errno::noent;
    case ENOEXEC: return Errno::noexec;
    case ENOLCK: return Errno::nolck;
    case ENOLINK: return Errno::nolink;
    case ENOMEM: return Errno::nomem;
    case ENOMSG: return Errno::nomsg;
    case ENOPROTOOPT: return Errno::noprotoopt;
    case ENOSPC: return Errno::nospc;
    case ENOSYS: return Errno::nosys;
    case ENOTCONN: return Errno::notconn;
    case ENOTDIR: return Errno::notdir;
    case ENOTEMPTY: return Errno::notempty;
    case ENOTRECOVERABLE: return Errno::notrecoverable;
    case ENOTSOCK: return Errno::notsock;
    case ENOTSUP: return Errno::notsup;  // == EOPNOTSUPP on Linux
    case ENOTTY: return Errno::notty;
    case ENXIO: return Errno::nxio;
    case EOVERFLOW: return Errno::overflow;
    case EOWNERDEAD: return Errno::ownerdead;
    case EPERM: return Errno::perm;
    case EPIPE: return Errno::pipe;
    case EPROTO: return Errno::proto;
    case EPROTONOSUPPORT: return Errno::protonosupport;
    case EPROTOTYPE: return Errno::prototype;
    case ERANGE: return Errno::range;
    case EROFS: return Errno::rofs;
    case ESPIPE: return Errno::spipe;
    case ESRCH: return Errno::srch;
    case ESTALE: return Errno::stale;
    case ETIMEDOUT: return Errno::timedout;
    case ETXTBSY: return Errno::txtbsy;
    case EXDEV: return Errno::xdev;
    default: return Errno::io;
  }
}

const char* errno_name(Errno e) {
  static constexpr const char* kNames[] = {
      "success", "2big", "acces", "addrinuse", "addrnotavail", "afnosupport", "again", "already",
      "badf", "badmsg", "busy", "canceled", "child", "connaborted", "connrefused", "connreset",
      "deadlk", "destaddrreq", "dom", "dquot", "exist", "fault", "fbig", "hostunreach", "idrm",
      "ilseq", "inprogress", "intr", "inval", "io", "isconn", "isdir", "loop", "mfile", "mlink",
      "msgsize", "multihop", "nametoolong", "netdown", "netreset", "netunreach", "nfile", "nobufs",
      "nodev", "noent", "noexec", "nolck", "nolink", "nomem", "nomsg", "noprotoopt", "nospc",
      "nosys", "notconn", "notdir", "notempty", "notrecoverable", "notsock", "notsup", "notty",
      "nxio", "overflow", "ownerdead", "perm", "pipe", "proto", "protonosupport", "prototype",
      "range", "rofs", "spipe", "srch", "stale", "timedout", "txtbsy", "xdev", "notcapable",
  };
  static_assert(sizeof(kNames) / sizeof(kNames[0]) == size_t(Errno::notcapable) + 1);
  size_t i = size_t(e);
  return i < sizeof(kNames) / sizeof(kNames[0]) ? kNames[i] : "unknown";
}

}  // namespace weft::wasi
