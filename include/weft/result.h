// Errors as values: every stage reports failures as an Error with a kind and a
// location (byte offset, line:column, or function + offset), never by throwing.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <variant>

namespace weft {

// Which phase rejected the input. The spec test suite checks that malformed
// input is rejected while decoding/parsing and invalid input while validating.
enum class ErrorKind : uint8_t {
  Malformed,      // binary decoding or text parsing
  Invalid,        // validation
  Unlinkable,     // import resolution
  Uninstantiable, // instantiation (start function or segment initialisation trapped)
  Trap,           // execution trap
  Exhaustion,     // call stack exhausted
  Io,             // file system
  Usage,          // wrong use of an API or the CLI
  Limit,          // an implementation limit was exceeded
  Exception,      // an exception no try_table caught (Wasm 3.0 exception handling)
};

const char* error_kind_name(ErrorKind kind);

struct Location {
  enum class Kind : uint8_t { None, ByteOffset, LineColumn, Function };
  Kind kind = Kind::None;
  uint32_t line = 0;      // LineColumn: 1-based
  uint32_t column = 0;    // LineColumn: 1-based
  uint32_t function = 0;  // Function: function index
  uint64_t offset = 0;    // ByteOffset / Function: byte offset in the binary (or body)

  static Location at_offset(uint64_t off) { Location l; l.kind = Kind::ByteOffset; l.offset = off; return l; }
  static Location at_line(uint32_t line, uint32_t column) {
    Location l; l.kind = Kind::LineColumn; l.line = line; l.column = column; return l;
  }
  static Location in_function(uint32_t func, uint64_t off) {
    Location l; l.kind = Kind::Function; l.function = func; l.offset = off; return l;
  }
  std::string to_string() const;  // "offset 0x1a", "3:17", "func 4 +0x12", ""
};

struct Error {
  ErrorKind kind = ErrorKind::Malformed;
  std::string message;  // for traps: exactly the spec's text ("integer divide by zero")
  Location location;
  std::string detail;   // optional extra context (e.g. a Wasm backtrace)

  // "<kind> error at <location>: <message>"
  std::string to_string() const;
};

inline Error make_error(ErrorKind kind, std::string message, Location loc = {}) {
  return Error{kind, std::move(message), loc, {}};
}

// A minimal expected<T, Error>.
template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::in_place_index<0>, std::move(value)) {}
  Result(Error error) : v_(std::in_place_index<1>, std::move(error)) {}

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  const Error& error() const& { return std::get<1>(v_); }
  Error&& error() && { return std::get<1>(std::move(v_)); }

 private:
  std::variant<T, Error> v_;
};

template <>
class [[nodiscard]] Result<void> {
 public:
  // The success path is one null pointer: compilers and translators return
  // Result<void> several times per instruction, and an inline Error (two
  // strings, a Location) cost a dozen stores to construct and two checks to
  // destroy on every `return {};`.
  Result() noexcept {}
  Result(Error error) : error_(std::make_unique<Error>(std::move(error))) {}
  Result(const Result& other) : error_(other.error_ ? std::make_unique<Error>(*other.error_) : nullptr) {}
  Result(Result&&) noexcept = default;
  Result& operator=(const Result& other) {
    if (this != &other) error_ = other.error_ ? std::make_unique<Error>(*other.error_) : nullptr;
    return *this;
  }
  Result& operator=(Result&&) noexcept = default;
  bool ok() const { return !error_; }
  explicit operator bool() const { return ok(); }
  // On success: an empty Error, as before.
  const Error& error() const& {
    static const Error kNone;
    return error_ ? *error_ : kNone;
  }
  Error&& error() && {
    if (!error_) error_ = std::make_unique<Error>();
    return std::move(*error_);
  }

 private:
  std::unique_ptr<Error> error_;
};

}  // namespace weft

// Propagate an error from an expression returning Result<...>.
#define WEFT_TRY(expr)                                   \
  do {                                                   \
    auto weft_try_result_ = (expr);                      \
    if (!weft_try_result_.ok())                          \
      return std::move(weft_try_result_).error();        \
  } while (0)

#define WEFT_CONCAT_INNER_(a, b) a##b
#define WEFT_CONCAT_(a, b) WEFT_CONCAT_INNER_(a, b)
// WEFT_TRY_ASSIGN(auto x, parse()) — declares/assigns x or returns the error.
#define WEFT_TRY_ASSIGN(decl, expr) WEFT_TRY_ASSIGN_IMPL_(WEFT_CONCAT_(weft_r_, __LINE__), decl, expr)
#define WEFT_TRY_ASSIGN_IMPL_(tmp, decl, expr) \
  auto tmp = (expr);                           \
  if (!tmp.ok()) return std::move(tmp).error(); \
  decl = std::move(tmp).value()
