// weft::fiber_context: P0876R14 first-class fibers on the fibers/arch assembly context switch.
//
// A fiber_context is one pointer: the stack pointer of a suspended fiber, whose
// registers are saved on that fiber's own stack. Switching saves the callee-saved
// state, swaps stack pointers and restores, nothing else: no allocation, no
// bookkeeping. A new fiber's control record (entry function, stack deleter) sits
// at the top of its own stack, so creating one allocates nothing beyond the stack.
// When the entry function returns, the stack is freed from the context that runs
// next (weft_ontop_fcontext), since a fiber cannot free the stack it runs on.
//
// Semantics follow P0876R14 ([fibercontext]); differences are in docs/fibers-native.md:
// move-only entry functions are accepted, and exceptions thrown by a stack deleter
// or by destroying an entry function terminate instead of propagating.
#pragma once

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <new>
#include <span>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include "fibers/context_switch.h"
#include "fibers/sanitizer.h"
#include "fibers/stack_pool.h"

namespace weft {

class fiber_context;

namespace fibers {

// The pool behind fiber_context's implicit-stack constructor: one per thread,
// 128 KiB stacks, each with a guard page. Use it to trim() or read statistics.
StackPool& this_thread_stack_pool();

// Usable stack bytes a fiber needs besides its control record, below which the
// explicit-stack constructor throws std::length_error. Enough to enter and leave
// a trivial entry function; real code needs far more.
inline constexpr std::size_t kMinimumStackBytes = 256 + detail::kFreshFrameBytes;

}  // namespace fibers

namespace fibers::detail {

// ---------------------------------------------------------------------------
// Sanitizer-annotated builds only: a fiber_context then points at a SwitchRecord
// on the suspended fiber's stack, which also knows that stack's bounds (ASan must
// be told the bounds of the stack it switches to). Plain builds hold the fcontext.
// ---------------------------------------------------------------------------
struct SwitchRecord {
  fcontext_t fctx = nullptr;
  const void* stack_bottom = nullptr;  // filled in by whoever the fiber switched to
  std::size_t stack_size = 0;
  void* fake_stack = nullptr;          // ASan's fake stack of the suspended fiber
  SwitchRecord* target = nullptr;      // resume_with / exit: the record being resumed
  void* payload = nullptr;             // resume_with: the function to run on the target
};

inline fcontext_t context_of(void* state) noexcept {
  if constexpr (kAnnotate) {
    return static_cast<SwitchRecord*>(state)->fctx;
  } else {
    return state;
  }
}

// Turns what a switch delivered into the state of the context that switched to us.
// A null `data` means the switch came through an ontop function, which already
// produced the final state (or null, if the previous fiber finished).
inline void* arrived(transfer_t t, void* own_fake_stack) noexcept {
  if constexpr (kAnnotate) {
    if (t.data == nullptr) return t.fctx;
    auto* from = static_cast<SwitchRecord*>(t.data);
    annotate_switch_finish(own_fake_stack, &from->stack_bottom, &from->stack_size);
    from->fctx = t.fctx;
    return from;
  } else {
    (void)own_fake_stack;
    return t.fctx;
  }
}

// Suspends the running fiber and resumes `target`; returns the state of whoever
// resumes us later. May throw: a function injected into us by resume_with() runs
// as if called from here.
// `Switch` is weft_jump_fcontext or weft_jump_fcontext_ret (context_switch.h).
template <transfer_t (*Switch)(fcontext_t, void*) = weft_jump_fcontext>
inline void* switch_to(void* target) {
  if constexpr (kAnnotate) {
    auto* to = static_cast<SwitchRecord*>(target);
    SwitchRecord self;
    annotate_switch_start(&self.fake_stack, to->stack_bottom, to->stack_size);
    return arrived(Switch(to->fctx, &self), self.fake_stack);
  } else {
    return Switch(target, nullptr).fctx;
  }
}

// Like switch_to, but `fn` runs on the target first and receives `payload`.
inline void* switch_with(void* target, void* payload, ontop_fn_t fn) {
  if constexpr (kAnnotate) {
    auto* to = static_cast<SwitchRecord*>(target);
    SwitchRecord self;
    self.target = to;
    self.payload = payload;
    annotate_switch_start(&self.fake_stack, to->stack_bottom, to->stack_size);
    return arrived(weft_ontop_fcontext(to->fctx, &self, fn), self.fake_stack);
  } else {
    return weft_ontop_fcontext(target, payload, fn).fctx;
  }
}

// ---------------------------------------------------------------------------
// Implicit stacks come from this_thread_stack_pool().
// ---------------------------------------------------------------------------
// A stack from this thread's pool, and in `pool` an opaque handle of that pool.
// Throws std::system_error(resource_unavailable_try_again) when the pool is exhausted.
Stack allocate_default_stack(void** pool);
// Returns the stack to its pool, from whichever thread the fiber finished on.
void release_default_stack(void* pool, std::span<std::byte> stack) noexcept;

struct DefaultStackDeleter {
  void* pool;
  void operator()(std::span<std::byte> stack) const noexcept { release_default_stack(pool, stack); }
};

// ---------------------------------------------------------------------------
// The control record at the top of a fiber's stack.
// ---------------------------------------------------------------------------
struct NoAnnotations {};
struct Annotations {
  SwitchRecord self;         // the fresh fiber's state
  unsigned valgrind_id = 0;
};

template <class F, class D>
struct FiberRecord {
  template <class EntryArg, class DeleterArg>
  FiberRecord(EntryArg&& entry_arg, DeleterArg&& deleter_arg, std::span<std::byte> stack_arg)
      : deleter(std::forward<DeleterArg>(deleter_arg)), stack(stack_arg) {
    ::new (static_cast<void*>(entry_storage)) F(std::forward<EntryArg>(entry_arg));
  }
  FiberRecord(const FiberRecord&) = delete;
  FiberRecord& operator=(const FiberRecord&) = delete;

  F& entry() noexcept { return *std::launder(reinterpret_cast<F*>(entry_storage)); }
  void destroy_entry() noexcept { std::destroy_at(&entry()); }

  // The entry function is destroyed on the fiber's own stack when it returns
  // (P0876), the rest from the next context together with the stack.
  alignas(F) std::byte entry_storage[sizeof(F)];
  D deleter;
  std::span<std::byte> stack;
  [[no_unique_address]] std::conditional_t<kAnnotate, Annotations, NoAnnotations> annotations;
};

// Lets the functions below build and take apart fiber_context values.
struct Access {
  static fiber_context make(void* state) noexcept;
  static void* release(fiber_context& context) noexcept;
};

template <class F>
concept EntryFunction = std::is_constructible_v<std::decay_t<F>, F> &&
                        std::is_invocable_r_v<fiber_context, std::decay_t<F>&, fiber_context&&>;

template <class F, class D>
void* create_fiber(F&& entry, std::span<std::byte> stack, D&& deleter);

template <class Fd>
transfer_t ontop_call(transfer_t t);

}  // namespace fibers::detail

// ---------------------------------------------------------------------------
// fiber_context
// ---------------------------------------------------------------------------
class fiber_context {
 public:
  // An empty fiber_context: represents no fiber.
  fiber_context() noexcept = default;

  // A fiber suspended before entry(prev), on a stack from this_thread_stack_pool().
  // Throws std::system_error (resource_unavailable_try_again) if no stack is
  // available, or whatever copying/moving `entry` throws.
  template <class F>
    requires(!std::is_same_v<std::remove_cvref_t<F>, fiber_context> && fibers::detail::EntryFunction<F>)
  explicit fiber_context(F&& entry) {
    fibers::detail::DefaultStackDeleter deleter{nullptr};
    const fibers::Stack stack = fibers::detail::allocate_default_stack(&deleter.pool);
    try {
      state_ = fibers::detail::create_fiber(std::forward<F>(entry), stack.span(), deleter);
    } catch (...) {
      deleter(stack.span());
      throw;
    }
  }

  // A fiber suspended before entry(prev), running on `stack`; when it finishes,
  // deleter(stack) is called from the context that runs next. The control record
  // takes the top of `stack`. Throws std::length_error if `stack` is smaller than
  // the record plus fibers::kMinimumStackBytes, or whatever copying/moving
  // `entry`/`deleter` throws (the deleter is not called then).
  template <class F, class D>
    requires(fibers::detail::EntryFunction<F> && std::is_constructible_v<std::decay_t<D>, D> &&
             std::is_invocable_v<std::decay_t<D>&, std::span<std::byte>>)
  fiber_context(F&& entry, std::span<std::byte> stack, D&& deleter)
      : state_(fibers::detail::create_fiber(std::forward<F>(entry), stack, std::forward<D>(deleter))) {}

  // Destroying a fiber_context that still represents a suspended fiber calls
  // std::terminate: the fiber must be told to finish and resumed until it does.
  ~fiber_context() {
    if (state_) std::terminate();
  }

  fiber_context(fiber_context&& other) noexcept : state_(std::exchange(other.state_, nullptr)) {}
  fiber_context& operator=(fiber_context&& other) noexcept {
    if (state_) std::terminate();  // would lose the fiber this one represents
    state_ = std::exchange(other.state_, nullptr);
    return *this;
  }
  fiber_context(const fiber_context&) = delete;
  fiber_context& operator=(const fiber_context&) = delete;

  // Suspends the calling fiber and resumes this one (empties *this). Returns the
  // fiber that later resumes the caller, or an empty fiber_context if that one
  // got here by finishing. Precondition: can_resume().
  fiber_context resume() && {
    assert(can_resume() && "resume() of an empty fiber_context or of a fiber owned by another thread");
    return fiber_context(fibers::detail::switch_to(std::exchange(state_, nullptr)));
  }

  // Like resume(), but first runs fn(caller) on the resumed fiber, as if called
  // from the resume()/resume_with() it is suspended in (or, for a fiber that never
  // ran, before its entry function, which then receives fn's result). What fn
  // returns is what that call returns; what it throws propagates out of that call.
  template <class Fn>
  fiber_context resume_with(Fn&& fn) && {
    using Stored = std::decay_t<Fn>;
    static_assert(std::is_invocable_r_v<fiber_context, Stored, fiber_context&&>,
                  "resume_with needs a function fiber_context(fiber_context&&)");
    assert(can_resume() && "resume_with() of an empty fiber_context or of a fiber owned by another thread");
    Stored local(std::forward<Fn>(fn));  // lives on our stack while we are suspended
    return fiber_context(fibers::detail::switch_with(std::exchange(state_, nullptr), &local,
                                                     &fibers::detail::ontop_call<Stored>));
  }

  // Whether the calling thread may resume this fiber: it is non-empty and either
  // never ran or was suspended by this thread (fibers never migrate after starting).
  bool can_resume() noexcept {
    if (!state_) return false;
    const std::uintptr_t owner = fibers::detail::saved_owner(fibers::detail::context_of(state_));
    return owner == 0 || owner == fibers::detail::current_thread_id();
  }

  bool empty() const noexcept { return state_ == nullptr; }
  explicit operator bool() const noexcept { return state_ != nullptr; }

  void swap(fiber_context& other) noexcept { std::swap(state_, other.state_); }
  friend void swap(fiber_context& lhs, fiber_context& rhs) noexcept { lhs.swap(rhs); }

 private:
  friend struct fibers::detail::Access;
  explicit fiber_context(void* state) noexcept : state_(state) {}

  void* state_ = nullptr;  // fcontext_t, or SwitchRecord* in sanitizer-annotated builds
};

namespace fibers {
// Forgets a suspended fiber without resuming or unwinding it. The caller owns
// the fiber's stack (it created the fiber with an explicit stack) and frees it
// afterwards; nothing on that stack is destroyed, so its frames must own no
// resources. This is how weft frees Wasm fibers that are released or aborted
// (their frames are interpreter/JIT frames that own nothing).
inline void abandon(fiber_context&& context) noexcept { (void)detail::Access::release(context); }

// resume(), for a caller that switches every context from one shared call site
// (weft's Wasm fiber runtime): the switch resumes by RET, which the CPU's
// return-stack predictor gets right exactly when the resumed context was
// suspended at that same site. resume() suits every other pattern (see
// "Return prediction" in fibers/arch/jump_x86_64_sysv_elf_gas.S).
inline fiber_context resume_from_shared_site(fiber_context&& context) {
  assert(context.can_resume() && "resume of an empty fiber_context or of a fiber owned by another thread");
  return detail::Access::make(detail::switch_to<detail::weft_jump_fcontext_ret>(detail::Access::release(context)));
}

// The raw saved-context pointer of a suspended fiber (what a switch stores; in
// sanitizer-annotated builds a SwitchRecord*): for code that switches on its own
// with the same frame layout (weft's JIT), which reads and writes it in place.
static_assert(sizeof(fiber_context) == sizeof(void*) && std::is_standard_layout_v<fiber_context>,
              "a fiber_context is exactly its saved-context pointer");
}  // namespace fibers

// ---------------------------------------------------------------------------
// Fiber start, injection and exit (need the complete fiber_context).
// ---------------------------------------------------------------------------
namespace fibers::detail {

inline fiber_context Access::make(void* state) noexcept { return fiber_context(state); }
inline void* Access::release(fiber_context& context) noexcept { return std::exchange(context.state_, nullptr); }

// Runs on the context that comes next after a fiber finished: frees the finished
// fiber's stack, which is no longer in use, and tells the resumed context that its
// predecessor is gone (an empty fiber_context).
template <class Rec>
transfer_t fiber_exit(transfer_t t) noexcept {
  auto* rec = static_cast<Rec*>(t.data);
  if constexpr (kAnnotate) {
    annotate_switch_finish(rec->annotations.self.target->fake_stack, nullptr, nullptr);
    annotate_stack_destroyed(rec->annotations.valgrind_id, rec->stack.data(), rec->stack.size());
  }
  auto deleter = std::move(rec->deleter);
  const std::span<std::byte> stack = rec->stack;
  rec->~Rec();
  std::invoke(deleter, stack);  // may unmap the memory `rec` was in
  return {nullptr, nullptr};
}

// The first code of every fiber (called by the assembly trampoline). noexcept:
// an exception escaping the entry function calls std::terminate (P0876).
template <class Rec>
[[noreturn]] void fiber_main(transfer_t t, void* arg) noexcept {
  auto* rec = static_cast<Rec*>(arg);
  void* next;
  {
    fiber_context continuation = std::invoke(rec->entry(), Access::make(arrived(t, nullptr)));
    next = Access::release(continuation);
    if (next == nullptr) std::terminate();  // returning an empty fiber_context leaves nowhere to go
    rec->destroy_entry();
  }
  if constexpr (kAnnotate) {
    auto* to = static_cast<SwitchRecord*>(next);
    rec->annotations.self.target = to;
    annotate_switch_start(nullptr, to->stack_bottom, to->stack_size);  // null: this fiber's fake stack dies
    weft_ontop_fcontext(to->fctx, rec, &fiber_exit<Rec>);
  } else {
    weft_ontop_fcontext(next, rec, &fiber_exit<Rec>);
  }
  __builtin_unreachable();
}

// Runs a resume_with() function on the resumed fiber's stack.
template <class Fd>
transfer_t ontop_call(transfer_t t) {
  void* caller;
  Fd* stored;
  if constexpr (kAnnotate) {
    auto* from = static_cast<SwitchRecord*>(t.data);
    annotate_switch_finish(from->target->fake_stack, &from->stack_bottom, &from->stack_size);
    from->fctx = t.fctx;
    caller = from;
    stored = static_cast<Fd*>(from->payload);
  } else {
    caller = t.fctx;
    stored = static_cast<Fd*>(t.data);
  }
  // Move the function onto this stack first: the caller's copy dies as soon as
  // anything resumes the caller, which fn itself may do.
  Fd fn(std::move(*stored));
  fiber_context result = std::invoke(std::move(fn), Access::make(caller));
  return {Access::release(result), nullptr};
}

template <class F, class D>
void* create_fiber(F&& entry, std::span<std::byte> stack, D&& deleter) {
  using Rec = FiberRecord<std::decay_t<F>, std::decay_t<D>>;
  constexpr std::uintptr_t kAlign = alignof(Rec) > 16 ? alignof(Rec) : 16;
  if (stack.size() < sizeof(Rec) + kAlign + kMinimumStackBytes) {
    throw std::length_error("weft::fiber_context: stack smaller than the control record plus the minimum");
  }
  const auto top = reinterpret_cast<std::uintptr_t>(stack.data() + stack.size());
  void* const where = reinterpret_cast<void*>((top - sizeof(Rec)) & ~(kAlign - 1));
  unsigned valgrind_id = 0;
  if constexpr (kAnnotate) valgrind_id = annotate_stack_created(stack.data(), stack.size());
  auto* rec = ::new (where) Rec(std::forward<F>(entry), std::forward<D>(deleter), stack);
  const fcontext_t fctx = weft_make_fcontext(where, &fiber_main<Rec>, rec);
  if constexpr (kAnnotate) {
    rec->annotations.valgrind_id = valgrind_id;
    rec->annotations.self.fctx = fctx;
    rec->annotations.self.stack_bottom = stack.data();
    rec->annotations.self.stack_size = stack.size();
    return &rec->annotations.self;
  } else {
    return fctx;
  }
}

}  // namespace fibers::detail
}  // namespace weft
