// An embedding built outside the tree against an installed weft: it sees only
// the installed include/weft/*.h and libraries. Runs a module that adds, calls
// through a fiber (the fiber extension is on by default) and prints results.
#include <cstdio>
#include <vector>

#include "weft/weft.h"

int main() {
  weft::Engine engine;
  auto module = weft::WasmModule::from_text(engine, R"((module
    (type $gen (fiber))
    (tag $next)
    (tag $yield (param i32))
    ;; Entered by its first $next; yields 41 once.
    (func $count (param $self (ref $gen))
      (unreachable)
      (event $next (fiber.suspend $yield (local.get $self) (i32.const 41))))
    (func (export "add") (param i32 i32) (result i32) (i32.add (local.get 0) (local.get 1)))
    (func (export "from_fiber") (result i32)
      (handle (result i32)
        (fiber.resume $gen $next (fiber.new $count))
        (i32.const -1)
        (event $yield (i32.add (i32.const 1))))))
  )");
  if (!module.ok()) {
    std::fprintf(stderr, "embed: %s\n", module.error().to_string().c_str());
    return 1;
  }
  weft::Store store(engine);
  auto instance = store.instantiate(*module, weft::Linker{});
  if (!instance.ok()) {
    std::fprintf(stderr, "embed: %s\n", instance.error().to_string().c_str());
    return 1;
  }
  const std::vector<weft::Value> args = {weft::Value::i32(40), weft::Value::i32(2)};
  auto sum = store.call(*instance->get_export("add"), args);
  auto yielded = store.call(*instance->get_export("from_fiber"), {});
  for (const auto* r : {&sum, &yielded}) {
    if (!r->ok()) {
      std::fprintf(stderr, "embed: %s\n", r->error().to_string().c_str());
      return 1;
    }
  }
  std::printf("add(40, 2) = %d\nfrom_fiber() = %d\n", (*sum)[0].as_i32(), (*yielded)[0].as_i32());
  return 0;
}
