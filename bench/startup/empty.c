// empty: the start-up baseline — a C program that does nothing. Each engine's
// median time for it is subtracted from its whole-program kernel times, and it
// is the "empty WASI module" of P8. (main takes argc/argv so that the no-WASI
// build for wasm-interp links it with the same signature as the kernels.)
int main(int argc, char** argv) {
  (void)argc;
  (void)argv;
  return 0;
}
