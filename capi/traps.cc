// Traps and frames: wasm_trap_new for host functions, and traps made from
// weft errors with their backtraces resolved to function indices.
//
// What a frame knows. weft's executors record a trap's backtrace as the
// descriptions of its frames, innermost first ("  at NAME (func[N])" or
// "  at func[N]" lines of Error::detail, Module::function_description), not
// code positions. A frame's function index is found by that description in
// the module of the called function (or of the module being instantiated,
// for a start function). A frame of another instance (reached by a
// cross-instance call) is left out when its description is not found there,
// and misattributed when it is (the same name and index in both modules).
// The position inside the function is not recorded, so a frame reports the
// start of its function: function offset 0 and, as module offset, where the
// function's body starts in the binary.
#include <cstring>

#include "capi/objects.h"
#include "core/module.h"

namespace weft::capi {

namespace {

// The frame of the function named `name` in `module`, if there is one.
std::optional<Frame> resolve_frame(std::string_view name, const Module& module, StoreObject* instance) {
  const uint32_t imported = module.num_imported_functions();
  for (uint32_t index = 0; index < module.total_functions(); ++index) {
    if (module.function_description(index) != name) continue;
    Frame frame;
    frame.instance = instance;
    frame.function_index = index;
    frame.function_offset = 0;
    frame.module_offset = index >= imported ? module.functions[index - imported].body_offset : 0;
    return frame;
  }
  return std::nullopt;
}

std::vector<Frame> frames_of(const std::string& backtrace, const Module& module, StoreObject* instance) {
  static constexpr std::string_view kFramePrefix = "  at ";
  std::vector<Frame> frames;
  size_t line_start = 0;
  while (line_start < backtrace.size()) {
    size_t line_end = backtrace.find('\n', line_start);
    if (line_end == std::string::npos) line_end = backtrace.size();
    std::string_view line(backtrace.data() + line_start, line_end - line_start);
    if (line.starts_with(kFramePrefix))
      if (std::optional<Frame> frame = resolve_frame(line.substr(kFramePrefix.size()), module, instance))
        frames.push_back(*frame);
    line_start = line_end + 1;
  }
  return frames;
}

wasm_frame_t* new_frame(const Frame& frame) {
  auto* out = new wasm_frame_t;
  out->frame = frame;
  if (frame.instance) {
    // Built without reading the store object: a trap may outlive its store.
    out->instance = new wasm_instance_t;
    out->instance->kind = RefKind::Instance;
    out->instance->object = frame.instance;
  }
  return out;
}

}  // namespace

wasm_trap_t* new_trap(std::string message, std::vector<Frame> frames) {
  auto* trap = new wasm_trap_t;
  trap->kind = RefKind::Trap;
  trap->data = std::make_shared<TrapData>();
  trap->data->message = std::move(message);
  trap->data->frames = std::move(frames);
  return trap;
}

wasm_trap_t* trap_from_error(const Error& error, const Module* module, StoreObject* instance) {
  std::vector<Frame> frames;
  if (module) frames = frames_of(error.detail, *module, instance);
  return new_trap(error.message, std::move(frames));
}

}  // namespace weft::capi

using namespace weft::capi;

extern "C" {

wasm_trap_t* wasm_trap_new(wasm_store_t*, const wasm_message_t* message) {
  std::string text;
  if (message && message->size) {
    text.assign(message->data, message->size);
    // The message is NUL-terminated by convention; keep only the text.
    if (text.back() == '\0') text.pop_back();
  }
  return new_trap(std::move(text));
}

void wasm_trap_message(const wasm_trap_t* trap, wasm_message_t* out) {
  if (!trap) return wasm_byte_vec_new_empty(out);
  new_name(out, trap->data->message, /*nul_terminated=*/true);
}

wasm_frame_t* wasm_trap_origin(const wasm_trap_t* trap) {
  if (!trap || trap->data->frames.empty()) return nullptr;
  return new_frame(trap->data->frames.front());
}

void wasm_trap_trace(const wasm_trap_t* trap, wasm_frame_vec_t* out) {
  if (!trap) return wasm_frame_vec_new_empty(out);
  const std::vector<Frame>& frames = trap->data->frames;
  wasm_frame_vec_new_uninitialized(out, frames.size());
  for (size_t i = 0; i < out->size; ++i) out->data[i] = new_frame(frames[i]);
}

// ---- Frames --------------------------------------------------------------------------

void wasm_frame_delete(wasm_frame_t* frame) {
  if (!frame) return;
  wasm_instance_delete(frame->instance);
  delete frame;
}

wasm_frame_t* wasm_frame_copy(const wasm_frame_t* frame) { return frame ? new_frame(frame->frame) : nullptr; }

wasm_instance_t* wasm_frame_instance(const wasm_frame_t* frame) { return frame->instance; }
uint32_t wasm_frame_func_index(const wasm_frame_t* frame) { return frame->frame.function_index; }
size_t wasm_frame_func_offset(const wasm_frame_t* frame) { return frame->frame.function_offset; }
size_t wasm_frame_module_offset(const wasm_frame_t* frame) { return frame->frame.module_offset; }

}  // extern "C"
