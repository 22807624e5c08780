// Bounds-checked access to the calling instance's linear memory. Every pointer
// a WASI function receives comes from the guest and is untrusted: each access
// is checked against the current size, and a failed check becomes EFAULT.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string_view>
#include <type_traits>

namespace weft::wasi {

// WASI structures are little-endian; so is every host weft supports, which lets
// loads and stores be plain memcpy.
static_assert(std::endian::native == std::endian::little, "WASI host code assumes a little-endian host");

class GuestMemory {
 public:
  GuestMemory() = default;
  GuestMemory(uint8_t* base, uint64_t size) : base_(base), size_(size) {}

  // 64-bit arithmetic: ptr + len cannot wrap for 32-bit guest pointers.
  bool in_bounds(uint32_t ptr, uint64_t len) const { return uint64_t(ptr) + len <= size_; }

  // The host address of [ptr, ptr+len), or nullptr if any byte is out of bounds.
  uint8_t* slice(uint32_t ptr, uint64_t len) const { return in_bounds(ptr, len) ? base_ + ptr : nullptr; }

  template <class T>
  bool load(uint32_t ptr, T& out) const {
    static_assert(std::is_trivially_copyable_v<T>);
    if (!in_bounds(ptr, sizeof(T))) return false;
    std::memcpy(&out, base_ + ptr, sizeof(T));
    return true;
  }

  template <class T>
  bool store(uint32_t ptr, T value) const {
    static_assert(std::is_trivially_copyable_v<T>);
    if (!in_bounds(ptr, sizeof(T))) return false;
    std::memcpy(base_ + ptr, &value, sizeof(T));
    return true;
  }

  bool write(uint32_t ptr, const void* data, uint64_t len) const {
    if (!in_bounds(ptr, len)) return false;
    if (len != 0) std::memcpy(base_ + ptr, data, len);
    return true;
  }

  std::optional<std::string_view> string(uint32_t ptr, uint32_t len) const {
    const uint8_t* p = slice(ptr, len);
    if (p == nullptr) return std::nullopt;
    return std::string_view(reinterpret_cast<const char*>(p), len);
  }

  uint64_t size() const { return size_; }

 private:
  uint8_t* base_ = nullptr;
  uint64_t size_ = 0;
};

// Encoding and decoding of fields inside a host-side copy of a WASI structure:
// structures are assembled in a local buffer and copied with one checked
// write, so no field offset (ptr + off) can wrap around the 32-bit space.
template <class T>
inline void put_field(uint8_t* buf, uint32_t offset, T value) {
  std::memcpy(buf + offset, &value, sizeof(T));
}
template <class T>
inline T get_field(const uint8_t* buf, uint32_t offset) {
  T value;
  std::memcpy(&value, buf + offset, sizeof(T));
  return value;
}

}  // namespace weft::wasi
