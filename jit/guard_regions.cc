// The guard-region fault handler and its registry of JIT code blocks (see
// guard_regions.h). The handler runs in signal context: it only reads
// atomics and immutable arrays, takes no lock and allocates nothing.
#include "jit/guard_regions.h"

#include <signal.h>

#include <algorithm>
#include <atomic>
#include <mutex>

#include "jit/backend.h"

namespace weft::jit::guard {

namespace {

// A registered block. `base` is written last (release) and cleared first, so
// the handler that sees a non-zero base sees the rest of the slot.
struct Slot {
  std::atomic<uintptr_t> base{0};
  std::atomic<uintptr_t> end{0};
  std::atomic<const FunctionTrap*> traps{nullptr};
  std::atomic<size_t> count{0};
  bool reserved = false;  // under g_registry_lock
};

// Live instances with guarded memories at once; beyond it, code keeps checks.
constexpr size_t kSlots = 4096;
Slot g_slots[kSlots];
std::atomic<size_t> g_slots_used{0};  // slots [0, used) may be live
std::mutex g_registry_lock;
std::atomic<uint64_t> g_traps_taken{0};

struct sigaction g_previous_segv, g_previous_bus;

uintptr_t trap_for(uintptr_t pc) {
  const size_t used = g_slots_used.load(std::memory_order_acquire);
  for (size_t i = 0; i < used; ++i) {
    const uintptr_t base = g_slots[i].base.load(std::memory_order_acquire);
    if (base == 0 || pc < base || pc >= g_slots[i].end.load(std::memory_order_relaxed)) continue;
    const FunctionTrap* traps = g_slots[i].traps.load(std::memory_order_relaxed);
    const size_t count = g_slots[i].count.load(std::memory_order_relaxed);
    const uint32_t offset = uint32_t(pc - base);
    const FunctionTrap* f = std::upper_bound(traps, traps + count, offset,
                                             [](uint32_t o, const FunctionTrap& t) { return o < t.begin; });
    if (f == traps) return 0;
    --f;
    return offset < f->end ? base + f->trap : 0;
  }
  return 0;
}

void on_fault(int sig, siginfo_t* info, void* context) {
  if (arch::kGuardRegions) {
    uintptr_t* pc = arch::interrupted_pc(context);
    if (const uintptr_t trap = trap_for(*pc)) {
      g_traps_taken.fetch_add(1, std::memory_order_relaxed);
      *pc = trap;  // returning resumes at the trap stub, in the faulting function's frame
      return;
    }
  }
  // Not ours: the handler installed before, as if this one were not there.
  const struct sigaction& previous = sig == SIGBUS ? g_previous_bus : g_previous_segv;
  if (previous.sa_flags & SA_SIGINFO) {
    previous.sa_sigaction(sig, info, context);
    return;
  }
  if (previous.sa_handler == SIG_DFL || previous.sa_handler == SIG_IGN) {
    // The default action: restore it; the faulting instruction runs again
    // when this returns and the fault ends the process as it would have.
    sigaction(sig, &previous, nullptr);
    return;
  }
  previous.sa_handler(sig);
}

bool install() {
  if (!arch::kGuardRegions) return false;
  struct sigaction action = {};
  action.sa_sigaction = &on_fault;
  action.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&action.sa_mask);
  if (sigaction(SIGSEGV, &action, &g_previous_segv) != 0) return false;
  if (sigaction(SIGBUS, &action, &g_previous_bus) != 0) {
    sigaction(SIGSEGV, &g_previous_segv, nullptr);
    return false;
  }
  // A runtime that keeps its own handler (ASan can be told to) ignores the
  // request: then the code keeps its checks.
  struct sigaction now = {};
  sigaction(SIGSEGV, nullptr, &now);
  return (now.sa_flags & SA_SIGINFO) && now.sa_sigaction == &on_fault;
}

}  // namespace

bool available() {
  static const bool installed = install();
  return installed;
}

int reserve_slot() {
  std::lock_guard<std::mutex> lock(g_registry_lock);
  for (size_t i = 0; i < kSlots; ++i) {
    if (g_slots[i].reserved) continue;
    g_slots[i].reserved = true;
    if (i + 1 > g_slots_used.load(std::memory_order_relaxed)) g_slots_used.store(i + 1, std::memory_order_release);
    return int(i);
  }
  return -1;
}

void publish(int slot, const void* base, size_t size, const FunctionTrap* traps, size_t count) {
  Slot& s = g_slots[slot];
  s.traps.store(traps, std::memory_order_relaxed);
  s.count.store(count, std::memory_order_relaxed);
  s.end.store(reinterpret_cast<uintptr_t>(base) + size, std::memory_order_relaxed);
  s.base.store(reinterpret_cast<uintptr_t>(base), std::memory_order_release);
}

void release_slot(int slot) {
  std::lock_guard<std::mutex> lock(g_registry_lock);
  Slot& s = g_slots[slot];
  s.base.store(0, std::memory_order_release);
  s.end.store(0, std::memory_order_relaxed);
  s.traps.store(nullptr, std::memory_order_relaxed);
  s.count.store(0, std::memory_order_relaxed);
  s.reserved = false;
}

uint64_t traps_taken() { return g_traps_taken.load(std::memory_order_relaxed); }

}  // namespace weft::jit::guard
