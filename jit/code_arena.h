// Executable memory for an instance's JIT code: one contiguous block per
// instance, so that the guard-region fault handler knows the instance's code
// as one block (jit/guard_regions.h) and a trap stub is an offset in it. No
// page is ever writable and executable at once (W^X), in one of two ways:
// - Lazily compiled code (jit/executor_lazy.cc) is placed function by
//   function as they are first called, while earlier ones run: the memory is
//   mapped twice — executable and never writable, writable and never
//   executable — so that code is written without making the page of a running
//   caller unexecutable for a moment: shared anonymous memory and its mremap
//   alias (profilers treat it as anonymous, so `perf` finds the functions'
//   names in /tmp/perf-PID.map), else a memfd mapped twice.
// - Eager code and copies of a module's code (jit/executor.cc) are written
//   whole before any of it runs: one private mapping, sealed (create_sealable).
#pragma once

#include <asmjit/core.h>

#include <cstddef>
#include <cstdint>
#include <memory>

namespace weft::jit {

class CodeArena {
 public:
  // Reserves `capacity` bytes (address space only: pages are backed as code
  // is written). nullptr when the system refuses (no memfd, no address space).
  // The last `stub_room` bytes are kept for place(…, stub = true): small
  // stubs that must find room even when functions no longer do.
  static std::unique_ptr<CodeArena> create(size_t capacity, size_t stub_room);
  // Room for the code of function bodies totalling `body_bytes` plus `extra`
  // bytes: the code is a few bytes per byte of Wasm and at worst ~30 (a body
  // of nothing but calls); at most 1 GiB, and within `reach` (a direct call's).
  static size_t capacity_for(size_t body_bytes, size_t extra, size_t reach);
  ~CodeArena();
  CodeArena(const CodeArena&) = delete;
  CodeArena& operator=(const CodeArena&) = delete;

  // Places `holder`'s code (one function) after the code placed so far,
  // aligned to `alignment` and then `shift` bytes on (the assembler's
  // function_shift), relocated to its executable address: returns its
  // offset from base(), or -1 when the arena is full or asmjit fails.
  int64_t place(asmjit::CodeHolder& holder, size_t alignment, bool stub = false, size_t shift = 0);
  // Where the next place(…, alignment) of a function will put it (its code
  // may then refer to its own address: MacroAssembler::set_code_address).
  size_t next(size_t alignment) const { return align_up(used_, alignment); }
  // Code written in place (a copy of a function: jit/code_template.h): the
  // writable address of `size` bytes where place(…, alignment, false, shift)
  // would put them, or nullptr when they do not fit; publish(at, size) then
  // makes them code, at offset `at` (which claim set).
  uint8_t* claim(size_t size, size_t alignment, size_t shift, size_t& at);
  void publish(size_t at, size_t size);
  // Overwrites placed code (a direct-call slot's jump) through the writable view.
  void rewrite(size_t offset, const void* bytes, size_t size);

  // An arena written whole before any of it runs (eager compilation): one
  // private mapping, writable until seal() makes it executable and never
  // writable again — W^X in time rather than by two views, which costs
  // less per page (anonymous memory instead of shared memory) and lets the
  // kernel back it with huge pages. Before seal(), place() may fill it;
  // claim/publish/rewrite are not for it.
  static std::unique_ptr<CodeArena> create_sealable(size_t capacity);
  // A sealed arena holding `holder`'s code (flattened, links resolved,
  // relocated to its address), or nullptr when asmjit or the system refuses.
  static std::unique_ptr<CodeArena> create_sealed(asmjit::CodeHolder& holder);
  // The environment code placed in arenas is assembled for: the host, as JIT code.
  static asmjit::Environment environment();
  // The writable address of the sealable arena's bytes (its code buffer).
  uint8_t* unsealed_base() { return sealed_ ? nullptr : writable_; }
  // Makes the sealable arena's first `size` bytes its code: executable, not writable.
  bool seal(size_t size);

  const uint8_t* base() const { return executable_; }
  size_t capacity() const { return capacity_; }
  size_t used() const { return used_; }

 private:
  static size_t align_up(size_t offset, size_t alignment) { return (offset + alignment - 1) / alignment * alignment; }
  CodeArena(uint8_t* executable, uint8_t* writable, size_t capacity, size_t stub_room)
      : executable_(executable), writable_(writable), capacity_(capacity), limit_(capacity - stub_room),
        stubs_used_(capacity - stub_room) {}
  uint8_t* executable_;
  uint8_t* writable_;
  size_t capacity_;
  size_t limit_;       // functions end below it, stubs above
  size_t used_ = 0;    // functions: [0, used_)
  size_t stubs_used_;  // stubs: [limit_, stubs_used_)
  bool sealable_ = false;  // create_sealable: one mapping (executable_ == writable_)
  bool sealed_ = false;
};

}  // namespace weft::jit
