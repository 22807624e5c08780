// The fixture of the WASI host-function tests (wasi_api_test.cc,
// wasi_socket_test.cc): a WasiContext whose stdout is a pipe, a preopened
// sandbox directory, optional listening sockets, and a bound module memory;
// calls go to the Linker's functions directly, on every tier.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/support/exec_test.h"
#include "tests/support/scratch.h"
#include "wasi/abi.h"
#include "wasi/wasi.h"

namespace weft::test {

namespace fs = std::filesystem;
using weft::Engine;
using weft::Extern;
using weft::Instance;
using weft::Linker;
using weft::Store;
using weft::Value;
using weft::WasmModule;
using weft::wasi::Errno;

constexpr uint32_t kNoValue = 0xFFFFFFFFu;

// Every test runs on every tier (the host functions see the same calls).
class WasiApi : public weft::test::ExecTest {
 protected:
  weft::test::ScratchDir scratch_{"weft_wasi"};  // removed last, after the context closed its preopens
  const fs::path& dir_ = scratch_.path();
  void SetUp() override {
    fs::create_directories(dir_ / "sandbox");
    ASSERT_EQ(::pipe(out_pipe_), 0);
  }
  void TearDown() override {
    ::close(out_pipe_[0]);
    ::close(out_pipe_[1]);
  }

  // Creates the context (stdout → a pipe, the sandbox preopened as "/sandbox"),
  // defines the functions and binds a module with an exported memory.
  void start(std::vector<std::string> args = {"prog"}, std::vector<std::string> env = {},
             const char* module_text = R"((module (memory (export "memory") 1)))") {
    weft::wasi::WasiOptions options;
    options.args = std::move(args);
    options.env = std::move(env);
    options.tcp_listen = tcp_listen_;
    options.preopens.push_back({(dir_ / "sandbox").string(), "/sandbox"});
    options.stdout_fd = out_pipe_[1];
    auto ctx = weft::wasi::WasiContext::create(options);
    ASSERT_TRUE(ctx.ok()) << ctx.error().message;
    wasi_ = std::move(*ctx);
    store_ = std::make_unique<Store>(engine_);
    wasi_->define(*store_, linker_);
    auto module = WasmModule::from_text(engine_, module_text);
    ASSERT_TRUE(module.ok()) << module.error().to_string();
    auto inst = store_->instantiate(*module, linker_);
    ASSERT_TRUE(inst.ok()) << inst.error().to_string();
    instance_ = *inst;
    wasi_->bind(instance_);
    if (auto mem = instance_.get_export("memory")) memory_ = *mem;
  }

  // Calls a WASI function; returns its errno (or kNoValue for proc_exit).
  weft::Result<uint32_t> call(const char* name, std::vector<Value> args) {
    std::optional<Extern> f = linker_.find(weft::wasi::kModuleName, name);
    EXPECT_TRUE(f.has_value()) << name;
    if (!f) return weft::make_error(weft::ErrorKind::Usage, "no such function");
    auto results = store_->call(*f, args);
    if (!results.ok()) return std::move(results).error();
    return results->empty() ? kNoValue : results->front().as_i32();
  }
  uint32_t errno_of(const char* name, std::vector<Value> args) {
    auto r = call(name, std::move(args));
    EXPECT_TRUE(r.ok()) << name << ": " << (r.ok() ? "" : r.error().message);
    return r.ok() ? *r : kNoValue;
  }

  static Value i32(uint32_t v) { return Value::i32(v); }
  static Value i64(uint64_t v) { return Value::i64(v); }

  void poke(uint32_t addr, const void* data, size_t len) {
    ASSERT_TRUE(store_->memory_write(memory_, addr, {static_cast<const uint8_t*>(data), len}).ok());
  }
  void poke_str(uint32_t addr, const std::string& s) { poke(addr, s.data(), s.size()); }
  template <class T>
  void poke_val(uint32_t addr, T v) { poke(addr, &v, sizeof v); }
  template <class T>
  T peek(uint32_t addr) {
    T v{};
    EXPECT_TRUE(store_->memory_read(memory_, addr, {reinterpret_cast<uint8_t*>(&v), sizeof v}).ok());
    return v;
  }
  std::string peek_str(uint32_t addr, size_t len) {
    std::string s(len, '\0');
    EXPECT_TRUE(store_->memory_read(memory_, addr, {reinterpret_cast<uint8_t*>(s.data()), len}).ok());
    return s;
  }
  std::string drain_stdout() {
    ::close(out_pipe_[1]);
    out_pipe_[1] = -1;
    std::string s;
    char buf[256];
    ssize_t n;
    while ((n = ::read(out_pipe_[0], buf, sizeof buf)) > 0) s.append(buf, size_t(n));
    return s;
  }
  // Opens `path` under the preopen (fd 3) and returns the new fd.
  uint32_t open_path(const std::string& path, uint32_t oflags, uint64_t rights, uint32_t* err = nullptr,
                     uint32_t lookup = weft::wasi::lookupflags::symlink_follow) {
    poke_str(1000, path);
    uint32_t e = errno_of("path_open", {i32(3), i32(lookup), i32(1000), i32(uint32_t(path.size())), i32(oflags),
                                        i64(rights), i64(weft::wasi::rights::all), i32(0), i32(2000)});
    if (err) *err = e;
    else EXPECT_EQ(e, 0u) << path;
    return e == 0 ? peek<uint32_t>(2000) : kNoValue;
  }

  static constexpr uint32_t E(Errno e) { return uint32_t(e); }

  std::vector<std::string> tcp_listen_;  // set before start(): sockets at fds 3…, the preopen after them
  int out_pipe_[2] = {-1, -1};
  Engine engine_{config()};
  std::unique_ptr<Store> store_;
  Linker linker_;
  Instance instance_;
  Extern memory_;
  std::unique_ptr<weft::wasi::WasiContext> wasi_;
};

}  // namespace weft::test
