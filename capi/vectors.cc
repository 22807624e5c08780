// The wasm_*_vec_* functions: one template per element ownership rule (plain
// bytes, values that own their references, owned pointers), instantiated per
// element type by one macro that writes the five C entry points.
#include <cstdlib>
#include <cstring>

#include "capi/objects.h"

namespace {

// How a vector element is copied and released.
struct ByteElements {
  static void copy(wasm_byte_t* out, const wasm_byte_t* in) { *out = *in; }
  static void release(wasm_byte_t*) {}
};
struct ValElements {
  static void copy(wasm_val_t* out, const wasm_val_t* in) { wasm_val_copy(out, in); }
  static void release(wasm_val_t* v) { wasm_val_delete(v); }
};
// Pointer elements: the vector owns what they point to.
template <class T, T* (*Copy)(const T*), void (*Delete)(T*)>
struct OwnedPointers {
  static void copy(T** out, T* const* in) { *out = *in ? Copy(*in) : nullptr; }
  static void release(T** p) {
    if (*p) Delete(*p);
  }
};

template <class Vec, class Elem>
void vec_new_uninitialized(Vec* out, size_t size) {
  out->size = size;
  out->data = size ? static_cast<Elem*>(std::calloc(size, sizeof(Elem))) : nullptr;
  if (size && !out->data) out->size = 0;
}

template <class Vec, class Elem>
void vec_new(Vec* out, size_t size, const Elem* data) {
  vec_new_uninitialized<Vec, Elem>(out, size);
  // The elements' ownership moves into the vector: a shallow copy.
  if (out->size) std::memcpy(static_cast<void*>(out->data), data, size * sizeof(Elem));
}

template <class Vec, class Elem, class Rules>
void vec_copy(Vec* out, const Vec* in) {
  vec_new_uninitialized<Vec, Elem>(out, in->size);
  for (size_t i = 0; i < out->size; ++i) Rules::copy(&out->data[i], &in->data[i]);
}

template <class Vec, class Rules>
void vec_delete(Vec* vec) {
  if (!vec) return;
  for (size_t i = 0; i < vec->size; ++i) Rules::release(&vec->data[i]);
  std::free(vec->data);
  vec->size = 0;
  vec->data = nullptr;
}

}  // namespace

#define WEFT_CAPI_VEC(name, Elem, Rules)                                                                    \
  extern "C" void wasm_##name##_vec_new_empty(wasm_##name##_vec_t* out) {                                   \
    out->size = 0;                                                                                          \
    out->data = nullptr;                                                                                    \
  }                                                                                                         \
  extern "C" void wasm_##name##_vec_new_uninitialized(wasm_##name##_vec_t* out, size_t size) {              \
    vec_new_uninitialized<wasm_##name##_vec_t, Elem>(out, size);                                            \
  }                                                                                                         \
  extern "C" void wasm_##name##_vec_new(wasm_##name##_vec_t* out, size_t size, Elem const data[]) {         \
    vec_new<wasm_##name##_vec_t, Elem>(out, size, data);                                                    \
  }                                                                                                         \
  extern "C" void wasm_##name##_vec_copy(wasm_##name##_vec_t* out, const wasm_##name##_vec_t* in) {         \
    vec_copy<wasm_##name##_vec_t, Elem, Rules>(out, in);                                                    \
  }                                                                                                         \
  extern "C" void wasm_##name##_vec_delete(wasm_##name##_vec_t* vec) { vec_delete<wasm_##name##_vec_t, Rules>(vec); }

#define WEFT_CAPI_POINTER_VEC(name)                                                             \
  using name##_elements = OwnedPointers<wasm_##name##_t, wasm_##name##_copy, wasm_##name##_delete>; \
  WEFT_CAPI_VEC(name, wasm_##name##_t*, name##_elements)

WEFT_CAPI_VEC(byte, wasm_byte_t, ByteElements)
WEFT_CAPI_VEC(val, wasm_val_t, ValElements)
WEFT_CAPI_POINTER_VEC(valtype)
WEFT_CAPI_POINTER_VEC(functype)
WEFT_CAPI_POINTER_VEC(globaltype)
WEFT_CAPI_POINTER_VEC(tabletype)
WEFT_CAPI_POINTER_VEC(memorytype)
WEFT_CAPI_POINTER_VEC(externtype)
WEFT_CAPI_POINTER_VEC(importtype)
WEFT_CAPI_POINTER_VEC(exporttype)
WEFT_CAPI_POINTER_VEC(frame)
WEFT_CAPI_POINTER_VEC(extern)
