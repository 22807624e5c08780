// Wasm value, reference, function, table, memory and global types.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace weft {

// A value type. Kept as a small struct (not a byte) because the fiber extension
// adds typed references `(ref null? $g)` that carry a type index.
struct ValType {
  enum Kind : uint8_t {
    I32, I64, F32, F64, V128,
    FuncRef,    // funcref  (binary 0x70)
    ExternRef,  // externref (binary 0x6F)
    FiberRef,   // abstract fiber heap type (fiber extension): nullable ⇒ fiberref
    TypedRef,   // (ref null? $g), $g a fiber type index (fiber extension)
    ExnRef,     // exnref (binary 0x69): a caught exception (Wasm 3.0 exception handling)
  };
  Kind kind = I32;
  bool nullable = true;    // only meaningful for reference kinds
  uint32_t type_index = 0; // only for TypedRef

  static constexpr ValType i32() { return {I32, true, 0}; }
  static constexpr ValType i64() { return {I64, true, 0}; }
  static constexpr ValType f32() { return {F32, true, 0}; }
  static constexpr ValType f64() { return {F64, true, 0}; }
  static constexpr ValType v128() { return {V128, true, 0}; }
  static constexpr ValType funcref() { return {FuncRef, true, 0}; }
  static constexpr ValType externref() { return {ExternRef, true, 0}; }
  static constexpr ValType exnref() { return {ExnRef, true, 0}; }

  constexpr bool is_ref() const { return kind >= FuncRef; }
  constexpr bool is_num() const { return kind <= F64; }
  constexpr bool is_vec() const { return kind == V128; }
  // Number of 8-byte value slots the type occupies in an executor.
  constexpr uint32_t slots() const { return kind == V128 ? 2 : 1; }

  friend constexpr bool operator==(ValType a, ValType b) {
    return a.kind == b.kind && (!a.is_ref() || (a.nullable == b.nullable && a.type_index == b.type_index));
  }
  friend constexpr bool operator!=(ValType a, ValType b) { return !(a == b); }
};

std::string to_string(ValType t);  // "i32", "funcref", "(ref null 3)"

// An entry of the type section: a function type, or (fiber extension) a fiber
// type `fiber (result r*)`, which has no params. Both are compared structurally.
struct FuncType {
  std::vector<ValType> params;
  std::vector<ValType> results;
  bool is_fiber = false;  // `fiber (result …)` (binary 0x5C) rather than `func` (0x60)
  friend bool operator==(const FuncType&, const FuncType&) = default;
};
std::string to_string(const FuncType& t);  // "[i32 i32] -> [i64]", "fiber [i32]"

struct Limits {
  uint64_t min = 0;
  std::optional<uint64_t> max;
  // The address type of a memory or table (Wasm 3.0's memory64): i64
  // addresses and indices, and limits as 64-bit numbers. false: i32.
  bool address64 = false;
  friend bool operator==(const Limits&, const Limits&) = default;
};

struct TableType {
  ValType element = ValType::funcref();
  Limits limits;
  friend bool operator==(const TableType&, const TableType&) = default;
};

struct MemoryType {
  Limits limits;  // in 64 KiB pages
  friend bool operator==(const MemoryType&, const MemoryType&) = default;
};

struct GlobalType {
  ValType type;
  bool is_mutable = false;
  friend bool operator==(const GlobalType&, const GlobalType&) = default;
};

enum class ExternKind : uint8_t { Func = 0, Table = 1, Memory = 2, Global = 3, Tag = 4 };
const char* to_string(ExternKind k);

constexpr uint64_t kWasmPageSize = 65536;
constexpr uint64_t kMaxMemoryPages = 65536;  // 4 GiB for 32-bit memories
constexpr uint64_t kMaxTableSize = 0xFFFFFFFFu;

}  // namespace weft
