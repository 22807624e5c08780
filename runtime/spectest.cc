// The `spectest` host module the official test suite imports from.
#include <cstdio>
#include <cstring>

#include "runtime/instantiate.h"

namespace weft::runtime {

namespace {
void print_value(ValType t, const uint64_t* slot) {
  switch (t.kind) {
    case ValType::I32: std::printf("%d : i32\n", int32_t(uint32_t(*slot))); break;
    case ValType::I64: std::printf("%lld : i64\n", (long long)int64_t(*slot)); break;
    case ValType::F32: {
      float f;
      uint32_t bits = uint32_t(*slot);
      std::memcpy(&f, &bits, 4);
      std::printf("%g : f32\n", double(f));
      break;
    }
    case ValType::F64: {
      double d;
      std::memcpy(&d, slot, 8);
      std::printf("%g : f64\n", d);
      break;
    }
    default: std::printf("<ref> : %s\n", to_string(t).c_str()); break;
  }
}
}  // namespace

std::vector<std::pair<std::string, ExternValue>> create_spectest(Store& store) {
  std::vector<std::pair<std::string, ExternValue>> out;
  auto add_print = [&](const char* name, std::vector<ValType> params) {
    FuncType type{params, {}};
    FuncInstance* f = store.add_host_function(
        type,
        [params](const uint64_t* args, uint64_t*) -> Result<void> {
          const uint64_t* a = args;
          for (ValType t : params) {
            print_value(t, a);
            a += t.slots();
          }
          std::fflush(stdout);
          return {};
        },
        std::string("spectest.") + name);
    out.push_back({name, {ExternKind::Func, f}});
  };
  add_print("print", {});
  add_print("print_i32", {ValType::i32()});
  add_print("print_i64", {ValType::i64()});
  add_print("print_f32", {ValType::f32()});
  add_print("print_f64", {ValType::f64()});
  add_print("print_i32_f32", {ValType::i32(), ValType::f32()});
  add_print("print_f64_f64", {ValType::f64(), ValType::f64()});

  auto add_global = [&](const char* name, ValType t, uint64_t bits) {
    auto g = std::make_unique<GlobalInstance>();
    g->type = GlobalType{t, false};
    g->value[0] = bits;
    out.push_back({name, {ExternKind::Global, store.add_global(std::move(g))}});
  };
  add_global("global_i32", ValType::i32(), 666);
  add_global("global_i64", ValType::i64(), 666);
  float f = 666.6f;
  uint32_t fbits;
  std::memcpy(&fbits, &f, 4);
  add_global("global_f32", ValType::f32(), fbits);
  double d = 666.6;
  uint64_t dbits;
  std::memcpy(&dbits, &d, 8);
  add_global("global_f64", ValType::f64(), dbits);

  auto table = TableInstance::create(TableType{ValType::funcref(), Limits{10, 20}}, 0, store.config().max_table_elements);
  if (table.ok()) out.push_back({"table", {ExternKind::Table, store.add_table(std::move(table).value())}});
  // The memory64 proposal's: the same with an i64 address type.
  auto table64 = TableInstance::create(TableType{ValType::funcref(), Limits{10, 20, true}}, 0,
                                       store.config().max_table_elements);
  if (table64.ok()) out.push_back({"table64", {ExternKind::Table, store.add_table(std::move(table64).value())}});

  auto mem = MemoryInstance::create(MemoryType{Limits{1, 2}}, store.config().max_memory_pages,
                                    wants_guard_region(store.config()));
  if (mem.ok()) out.push_back({"memory", {ExternKind::Memory, store.add_memory(std::move(mem).value())}});
  return out;
}

}  // namespace weft::runtime
