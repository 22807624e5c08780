// WASI preview1 (`wasi_snapshot_preview1`) for weft, built only on the public
// embedding API: a WasiContext holds the guest's arguments, environment, file
// descriptors and preopened directories, defines the host functions in a
// Linker, and is bound to the instance's exported memory before `_start` runs.
//
//   auto wasi = wasi::WasiContext::create(options);      // opens the preopens
//   (*wasi)->define(store, linker);                      // every preview1 function
//   Instance inst = *store.instantiate(module, linker);
//   (*wasi)->bind(inst);                                 // the "memory" export
//   Result<...> r = store.call(*inst.get_export("_start"), {});
//   if (!r.ok()) if (auto code = (*wasi)->exit_status(r.error())) …  // proc_exit
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "weft/weft.h"

namespace weft::wasi {

// A host directory made visible to the guest under `guest_path` (the name the
// guest's libc matches paths against, e.g. "." or "/data").
struct Preopen {
  std::string host_path;
  std::string guest_path;
};

// A listening TCP socket handed to the guest (wasmtime's --tcplisten).
struct ListeningSocket {
  uint32_t guest_fd = 0;
  std::string requested;  // the address as given, e.g. "127.0.0.1:0"
  std::string bound;      // the address the socket is bound to, e.g. "127.0.0.1:41234"
};

struct WasiOptions {
  std::vector<std::string> args;  // argv, including argv[0]
  std::vector<std::string> env;   // "KEY=VALUE" entries
  // "HOST:PORT" addresses to listen on; as in wasmtime, the sockets are guest
  // fds 3, 4, … in this order, before the preopened directories.
  std::vector<std::string> tcp_listen;
  std::vector<Preopen> preopens;  // guest fds after the listening sockets, in this order
  // Host descriptors behind guest fds 0-2; borrowed, never closed.
  int stdin_fd = 0, stdout_fd = 1, stderr_fd = 2;
};

struct WasiState;

class WasiContext {
 public:
  // Opens every listening socket and preopened directory; fails (Io) naming
  // the first that cannot be opened.
  static Result<std::unique_ptr<WasiContext>> create(WasiOptions options);
  ~WasiContext();
  WasiContext(const WasiContext&) = delete;
  WasiContext& operator=(const WasiContext&) = delete;

  // Defines every wasi_snapshot_preview1 function in `linker` as host
  // functions of `store`. The context must outlive calls into the store.
  void define(Store& store, Linker& linker);

  // Uses `instance`'s exported "memory" for guest pointers. Without one, WASI
  // functions that take pointers trap with a message saying so.
  void bind(const Instance& instance);

  // If `error` is the unwinding started by proc_exit, the program's exit status.
  std::optional<uint32_t> exit_status(const Error& error) const;

  // The listening sockets, with the addresses they are bound to.
  const std::vector<ListeningSocket>& listeners() const;

  // Whether `name` is a wasi_snapshot_preview1 function this library defines.
  static bool defines(std::string_view name);

 private:
  explicit WasiContext(std::unique_ptr<WasiState> state);
  std::unique_ptr<WasiState> state_;
};

}  // namespace weft::wasi
