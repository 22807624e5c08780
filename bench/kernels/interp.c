// interp: a small stack-bytecode interpreter (switch dispatch) running a loop
// that computes Collatz step counts — the dispatch pattern of scripting VMs.
// Usage: interp [n]   (default 400000): sum of Collatz steps for 1..n.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

enum Op { PUSH, LOAD, STORE, ADD, SUB, MUL, AND, SHR, EQ, JZ, JMP, HALT };

typedef struct {
  uint8_t op;
  int32_t arg;
} Instr;

// Variables: 0 = i (outer counter), 1 = x, 2 = total steps, 3 = n.
static const Instr program[] = {
    /*  0 */ {PUSH, 1}, {STORE, 0},                                      // i = 1
    /*  2 */ {LOAD, 0}, {LOAD, 3}, {PUSH, 1}, {ADD, 0}, {EQ, 0},        // i == n + 1 ?
    /*  7 */ {JZ, 9}, {HALT, 0},
    /*  9 */ {LOAD, 0}, {STORE, 1},                                      // x = i
    /* 11 */ {LOAD, 1}, {PUSH, 1}, {EQ, 0}, {JZ, 20},                    // while x != 1
    /* 15 */ {LOAD, 0}, {PUSH, 1}, {ADD, 0}, {STORE, 0}, {JMP, 2},       // i++, next i
    /* 20 */ {LOAD, 2}, {PUSH, 1}, {ADD, 0}, {STORE, 2},                 // steps++
    /* 24 */ {LOAD, 1}, {PUSH, 1}, {AND, 0}, {JZ, 35},                   // x odd?
    /* 28 */ {LOAD, 1}, {PUSH, 3}, {MUL, 0}, {PUSH, 1}, {ADD, 0}, {STORE, 1}, {JMP, 11},  // x = 3x + 1
    /* 35 */ {LOAD, 1}, {PUSH, 1}, {SHR, 0}, {STORE, 1}, {JMP, 11},      // x = x / 2
};

static int64_t run(int64_t n) {
  int64_t vars[4] = {0, 0, 0, n};
  int64_t stack[16];
  int sp = 0;
  for (int pc = 0;;) {
    const Instr in = program[pc++];
    switch (in.op) {
      case PUSH: stack[sp++] = in.arg; break;
      case LOAD: stack[sp++] = vars[in.arg]; break;
      case STORE: vars[in.arg] = stack[--sp]; break;
      case ADD: --sp; stack[sp - 1] += stack[sp]; break;
      case SUB: --sp; stack[sp - 1] -= stack[sp]; break;
      case MUL: --sp; stack[sp - 1] *= stack[sp]; break;
      case AND: --sp; stack[sp - 1] &= stack[sp]; break;
      case SHR: --sp; stack[sp - 1] >>= stack[sp]; break;
      case EQ: --sp; stack[sp - 1] = stack[sp - 1] == stack[sp]; break;
      case JZ: if (stack[--sp] == 0) pc = in.arg; break;
      case JMP: pc = in.arg; break;
      case HALT: return vars[2];
      default: return -1;
    }
  }
}

int main(int argc, char** argv) {
  const int64_t n = argc > 1 ? atoll(argv[1]) : 400000;
  printf("interp(%lld) collatz steps %lld\n", (long long)n, (long long)run(n));
  return 0;
}
