// WasiContext: creation (stdio, preopens, argv/environ), the table of
// wasi_snapshot_preview1 host functions, memory binding and proc_exit status.
#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <span>
#include <tuple>
#include <utility>

#include "wasi/state.h"

namespace weft::wasi {

// ---- binding member functions as host functions ------------------------------

namespace {

template <class T>
ValType wasm_type() {
  static_assert(std::is_same_v<T, uint32_t> || std::is_same_v<T, uint64_t> || std::is_same_v<T, int64_t>,
                "WASI functions take only u32 and u64/s64 parameters");
  return std::is_same_v<T, uint32_t> ? ValType::i32() : ValType::i64();
}

template <class T>
T from_value(const Value& v) {
  if constexpr (std::is_same_v<T, uint32_t>) return v.as_i32();
  else return T(v.as_i64());
}

using Call = Result<void> (*)(WasiState&, std::span<const Value>, std::span<Value>);

template <auto Method>
struct Binding;

// Functions returning an errno: one i32 result; they read guest memory.
template <class... P, Errno (WasiState::*Method)(P...)>
struct Binding<Method> {
  static FuncType type() { return FuncType{{wasm_type<P>()...}, {ValType::i32()}, false}; }
  static Result<void> call(WasiState& state, std::span<const Value> args, std::span<Value> results) {
    WEFT_TRY(state.enter());
    Errno e = invoke(state, args, std::index_sequence_for<P...>{});
    results[0] = Value::i32(uint32_t(e));
    return {};
  }
  template <size_t... I>
  static Errno invoke(WasiState& state, [[maybe_unused]] std::span<const Value> args, std::index_sequence<I...>) {
    return (state.*Method)(from_value<P>(args[I])...);
  }
};

// proc_exit: no result, and it traps to unwind.
template <class... P, Result<void> (WasiState::*Method)(P...)>
struct Binding<Method> {
  static FuncType type() { return FuncType{{wasm_type<P>()...}, {}, false}; }
  static Result<void> call(WasiState& state, std::span<const Value> args, std::span<Value>) {
    return invoke(state, args, std::index_sequence_for<P...>{});
  }
  template <size_t... I>
  static Result<void> invoke(WasiState& state, [[maybe_unused]] std::span<const Value> args,
                             std::index_sequence<I...>) {
    return (state.*Method)(from_value<P>(args[I])...);
  }
};

struct FunctionDef {
  const char* name;
  FuncType (*type)();
  Call call;
};

#define WEFT_WASI_FUNCTION(name) FunctionDef{#name, &Binding<&WasiState::name>::type, &Binding<&WasiState::name>::call}

// Every function of wasi_snapshot_preview1 (witx order).
const FunctionDef kFunctions[] = {
    WEFT_WASI_FUNCTION(args_get),
    WEFT_WASI_FUNCTION(args_sizes_get),
    WEFT_WASI_FUNCTION(environ_get),
    WEFT_WASI_FUNCTION(environ_sizes_get),
    WEFT_WASI_FUNCTION(clock_res_get),
    WEFT_WASI_FUNCTION(clock_time_get),
    WEFT_WASI_FUNCTION(fd_advise),
    WEFT_WASI_FUNCTION(fd_allocate),
    WEFT_WASI_FUNCTION(fd_close),
    WEFT_WASI_FUNCTION(fd_datasync),
    WEFT_WASI_FUNCTION(fd_fdstat_get),
    WEFT_WASI_FUNCTION(fd_fdstat_set_flags),
    WEFT_WASI_FUNCTION(fd_fdstat_set_rights),
    WEFT_WASI_FUNCTION(fd_filestat_get),
    WEFT_WASI_FUNCTION(fd_filestat_set_size),
    WEFT_WASI_FUNCTION(fd_filestat_set_times),
    WEFT_WASI_FUNCTION(fd_pread),
    WEFT_WASI_FUNCTION(fd_prestat_get),
    WEFT_WASI_FUNCTION(fd_prestat_dir_name),
    WEFT_WASI_FUNCTION(fd_pwrite),
    WEFT_WASI_FUNCTION(fd_read),
    WEFT_WASI_FUNCTION(fd_readdir),
    WEFT_WASI_FUNCTION(fd_renumber),
    WEFT_WASI_FUNCTION(fd_seek),
    WEFT_WASI_FUNCTION(fd_sync),
    WEFT_WASI_FUNCTION(fd_tell),
    WEFT_WASI_FUNCTION(fd_write),
    WEFT_WASI_FUNCTION(path_create_directory),
    WEFT_WASI_FUNCTION(path_filestat_get),
    WEFT_WASI_FUNCTION(path_filestat_set_times),
    WEFT_WASI_FUNCTION(path_link),
    WEFT_WASI_FUNCTION(path_open),
    WEFT_WASI_FUNCTION(path_readlink),
    WEFT_WASI_FUNCTION(path_remove_directory),
    WEFT_WASI_FUNCTION(path_rename),
    WEFT_WASI_FUNCTION(path_symlink),
    WEFT_WASI_FUNCTION(path_unlink_file),
    WEFT_WASI_FUNCTION(poll_oneoff),
    WEFT_WASI_FUNCTION(proc_exit),
    WEFT_WASI_FUNCTION(proc_raise),
    WEFT_WASI_FUNCTION(sched_yield),
    WEFT_WASI_FUNCTION(random_get),
    WEFT_WASI_FUNCTION(sock_accept),
    WEFT_WASI_FUNCTION(sock_recv),
    WEFT_WASI_FUNCTION(sock_send),
    WEFT_WASI_FUNCTION(sock_shutdown),
};

#undef WEFT_WASI_FUNCTION

WasiState::StringList pack(const std::vector<std::string>& strings) {
  WasiState::StringList list;
  for (const std::string& s : strings) {
    list.offsets.push_back(uint32_t(list.bytes.size()));
    list.bytes += s;
    list.bytes += '\0';
  }
  return list;
}

}  // namespace

Result<void> WasiState::enter() {
  if (!memory_export || store == nullptr)
    return make_error(ErrorKind::Trap, "WASI function called, but the module exports no memory named \"memory\"");
  mem = GuestMemory(store->memory_data(*memory_export), store->memory_size_bytes(*memory_export));
  return {};
}

// ---- WasiContext -------------------------------------------------------------

WasiContext::WasiContext(std::unique_ptr<WasiState> state) : state_(std::move(state)) {}
WasiContext::~WasiContext() = default;

Result<std::unique_ptr<WasiContext>> WasiContext::create(WasiOptions options) {
  auto state = std::make_unique<WasiState>();
  for (const std::string& arg : options.args)
    if (arg.find('\0') != std::string::npos) return make_error(ErrorKind::Usage, "program argument contains a NUL byte");
  for (const std::string& var : options.env)
    if (var.find('\0') != std::string::npos || var.find('=') == std::string::npos)
      return make_error(ErrorKind::Usage, "environment entry '" + var + "' is not KEY=VALUE");
  state->args = pack(options.args);
  state->env = pack(options.env);

  const int stdio[3] = {options.stdin_fd, options.stdout_fd, options.stderr_fd};
  for (uint32_t fd = 0; fd < 3; ++fd) {
    FdEntry entry;
    entry.host_fd = stdio[fd];
    struct stat st;
    entry.is_socket = ::fstat(stdio[fd], &st) == 0 && S_ISSOCK(st.st_mode);  // e.g. started by inetd
    state->fds.insert_at(fd, std::move(entry));
  }
  // poll_oneoff's epoll set exists from the start: created lazily, it could
  // fail with EMFILE in the very program that most needs to wait — one that
  // accepted connections until it ran out of descriptors.
  state->epoll = UniqueFd(::epoll_create1(EPOLL_CLOEXEC));
  if (!state->epoll.valid())
    return make_error(ErrorKind::Io, std::string("cannot create the epoll set for poll_oneoff: ") + std::strerror(errno));
  // wasmtime numbers the listening sockets first (fds 3, 4, …), then the
  // preopens: programs written for `wasmtime run --tcplisten` expect fd 3.
  for (const std::string& address : options.tcp_listen) {
    FdEntry entry;
    WEFT_TRY_ASSIGN(ListeningSocket listener, open_tcp_listener(address, entry.owned));
    entry.host_fd = entry.owned.get();
    entry.is_socket = true;
    entry.rights_base = rights::socket_listener;
    entry.rights_inheriting = rights::socket_stream;
    std::optional<uint32_t> fd = state->fds.insert(std::move(entry));
    if (!fd) return make_error(ErrorKind::Limit, "too many listening sockets");
    listener.guest_fd = *fd;
    state->listeners.push_back(std::move(listener));
  }
  for (const Preopen& p : options.preopens) {
    int fd = ::open(p.host_path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
      return make_error(ErrorKind::Io, "cannot open directory '" + p.host_path + "': " + std::strerror(errno));
    if (p.guest_path.empty() || p.guest_path.find('\0') != std::string::npos)
      return make_error(ErrorKind::Usage, "invalid guest path for directory '" + p.host_path + "'");
    FdEntry entry;
    entry.owned = UniqueFd(fd);
    entry.host_fd = fd;
    entry.preopen = p.guest_path;
    if (!state->fds.insert(std::move(entry))) return make_error(ErrorKind::Limit, "too many preopened directories");
  }
  return std::unique_ptr<WasiContext>(new WasiContext(std::move(state)));
}

void WasiContext::define(Store& store, Linker& linker) {
  state_->store = &store;
  WasiState* state = state_.get();
  for (const FunctionDef& def : kFunctions) {
    Call call = def.call;
    Extern f = store.create_host_function(
        def.type(),
        [state, call](std::span<const Value> args, std::span<Value> results) { return call(*state, args, results); },
        std::string(kModuleName) + "." + def.name);
    linker.define(kModuleName, def.name, f);
  }
}

void WasiContext::bind(const Instance& instance) {
  std::optional<Extern> memory = instance.get_export("memory");
  if (memory && memory->kind == ExternKind::Memory) state_->memory_export = memory;
  else state_->memory_export.reset();
}

std::optional<uint32_t> WasiContext::exit_status(const Error& error) const {
  if (!state_->exit_code || error.message != kExitTrapMessage) return std::nullopt;
  return state_->exit_code;
}

const std::vector<ListeningSocket>& WasiContext::listeners() const { return state_->listeners; }

bool WasiContext::defines(std::string_view name) {
  for (const FunctionDef& def : kFunctions)
    if (name == def.name) return true;
  return false;
}

}  // namespace weft::wasi
