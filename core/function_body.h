// A function's instruction bytes (Function::body): either a view of bytes
// the module keeps (Module::source), or bytes of its own.
//
// The decoder used to copy every body into a vector of its own: for a large
// module, tens of thousands of allocations, each with its own header and
// padding (docs/performance.md, "Function bodies in one buffer"). Decoded
// bodies are now views: of the caller's input when it is handed over
// (WasmModule::from_file's buffer), else of one copy of the code section.
// Text modules and modules built in code own theirs.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <span>
#include <vector>

namespace weft {

class FunctionBody {
 public:
  using value_type = uint8_t;
  using iterator = const uint8_t*;
  using const_iterator = const uint8_t*;

  FunctionBody() = default;
  FunctionBody(std::vector<uint8_t> bytes) : own_(std::make_unique<std::vector<uint8_t>>(std::move(bytes))) {}
  FunctionBody(std::initializer_list<uint8_t> bytes) : FunctionBody(std::vector<uint8_t>(bytes)) {}
  // Bytes that live elsewhere (the module's source buffer) for as long as this body.
  static FunctionBody view(std::span<const uint8_t> bytes) {
    FunctionBody b;
    b.view_data_ = bytes.data();
    b.view_size_ = bytes.size();
    return b;
  }

  FunctionBody(const FunctionBody& other) { *this = other; }
  FunctionBody& operator=(const FunctionBody& other) {
    if (this == &other) return *this;
    own_ = other.own_ ? std::make_unique<std::vector<uint8_t>>(*other.own_) : nullptr;
    view_data_ = other.view_data_;
    view_size_ = other.view_size_;
    return *this;
  }
  FunctionBody(FunctionBody&&) noexcept = default;
  FunctionBody& operator=(FunctionBody&&) noexcept = default;

  const uint8_t* data() const { return own_ ? own_->data() : view_data_; }
  size_t size() const { return own_ ? own_->size() : view_size_; }
  bool empty() const { return size() == 0; }
  const uint8_t* begin() const { return data(); }
  const uint8_t* end() const { return data() + size(); }
  uint8_t operator[](size_t i) const { return data()[i]; }

  // The bytes to change in place (tests that cut or patch a body): a view
  // becomes a copy of its own first.
  std::vector<uint8_t>& edit() {
    if (!own_) {
      own_ = std::make_unique<std::vector<uint8_t>>(view_data_, view_data_ + view_size_);
      view_data_ = nullptr;
      view_size_ = 0;
    }
    return *own_;
  }

  friend bool operator==(const FunctionBody& a, const FunctionBody& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
  }
  friend bool operator==(const FunctionBody& a, const std::vector<uint8_t>& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
  }

 private:
  // Owned bytes sit behind a pointer so that a view costs no more than the
  // vector the body used to be (three words; a large module has tens of
  // thousands of functions).
  std::unique_ptr<std::vector<uint8_t>> own_;
  const uint8_t* view_data_ = nullptr;
  size_t view_size_ = 0;
};

}  // namespace weft
