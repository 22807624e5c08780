// The shared, immutable state behind a WasmModule handle.
#pragma once

#include <memory>

#include "core/module.h"
#include "validator/validator.h"
#include "weft/weft.h"

namespace weft {

struct WasmModule::Impl {
  std::shared_ptr<const Module> module;
  std::shared_ptr<const validator::ValidationInfo> info;
};

}  // namespace weft
