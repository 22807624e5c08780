/* Test probes for AArch64 AAPCS64: callee-saved register survival and the stack pointer. */

#include "fibers/arch/layout_arm64_aapcs.h"

        .text
/*
 * uint64_t weft_probe_callee_saved(uint64_t seed, void (*fn)(void*), void* arg);
 * Checks X19-X28 (bits 0-9), FP/X29 (bit 10) and D8-D15 (bits 11-18).
 * Stack frame: [0] caller's FP, LR  [16..95] X19-X28  [96..159] D8-D15  [160] seed.
 */
        .globl  weft_probe_callee_saved
        .type   weft_probe_callee_saved, %function
        .p2align 4
weft_probe_callee_saved:
        WEFT_BTI_C
        sub     sp, sp, #176
        stp     x29, x30, [sp, #0]          // keep the caller's callee-saved registers
        stp     x19, x20, [sp, #16]
        stp     x21, x22, [sp, #32]
        stp     x23, x24, [sp, #48]
        stp     x25, x26, [sp, #64]
        stp     x27, x28, [sp, #80]
        stp     d8,  d9,  [sp, #96]
        stp     d10, d11, [sp, #112]
        stp     d12, d13, [sp, #128]
        stp     d14, d15, [sp, #144]
        str     x0, [sp, #160]              // remember the seed
        add     x19, x0, #0                 // X19..X28 = seed + 0..9
        add     x20, x0, #1
        add     x21, x0, #2
        add     x22, x0, #3
        add     x23, x0, #4
        add     x24, x0, #5
        add     x25, x0, #6
        add     x26, x0, #7
        add     x27, x0, #8
        add     x28, x0, #9
        add     x29, x0, #10                // FP = seed + 10 (used as data here)
        add     x9, x0, #11                 // D8..D15 = bit patterns seed + 11..18
        fmov    d8, x9
        add     x9, x0, #12
        fmov    d9, x9
        add     x9, x0, #13
        fmov    d10, x9
        add     x9, x0, #14
        fmov    d11, x9
        add     x9, x0, #15
        fmov    d12, x9
        add     x9, x0, #16
        fmov    d13, x9
        add     x9, x0, #17
        fmov    d14, x9
        add     x9, x0, #18
        fmov    d15, x9
        mov     x0, x2                      // fn's argument
        blr     x1                          // fn(arg): switches fibers while we hold the pattern
        ldr     x9, [sp, #160]              // seed
        mov     x0, #0                      // mask of mismatches
        .macro  check_x reg, k
        add     x10, x9, #\k
        cmp     \reg, x10
        cset    x11, ne
        orr     x0, x0, x11, lsl #\k
        .endm
        .macro  check_d reg, k
        add     x10, x9, #\k
        fmov    x12, \reg
        cmp     x12, x10
        cset    x11, ne
        orr     x0, x0, x11, lsl #\k
        .endm
        check_x x19, 0
        check_x x20, 1
        check_x x21, 2
        check_x x22, 3
        check_x x23, 4
        check_x x24, 5
        check_x x25, 6
        check_x x26, 7
        check_x x27, 8
        check_x x28, 9
        check_x x29, 10
        check_d d8, 11
        check_d d9, 12
        check_d d10, 13
        check_d d11, 14
        check_d d12, 15
        check_d d13, 16
        check_d d14, 17
        check_d d15, 18
        ldp     x29, x30, [sp, #0]          // give the caller its registers back
        ldp     x19, x20, [sp, #16]
        ldp     x21, x22, [sp, #32]
        ldp     x23, x24, [sp, #48]
        ldp     x25, x26, [sp, #64]
        ldp     x27, x28, [sp, #80]
        ldp     d8,  d9,  [sp, #96]
        ldp     d10, d11, [sp, #112]
        ldp     d12, d13, [sp, #128]
        ldp     d14, d15, [sp, #144]
        add     sp, sp, #176
        ret
        .size   weft_probe_callee_saved, .-weft_probe_callee_saved

/* uintptr_t weft_probe_stack_pointer(void): SP at the call site (BL does not push). */
        .globl  weft_probe_stack_pointer
        .type   weft_probe_stack_pointer, %function
        .p2align 4
weft_probe_stack_pointer:
        WEFT_BTI_C
        mov     x0, sp
        ret
        .size   weft_probe_stack_pointer, .-weft_probe_stack_pointer

        .section .rodata
        .globl  weft_probe_callee_saved_count
        .p2align 2
weft_probe_callee_saved_count:
        .word   19
        .section .rodata.str1.1, "aMS", %progbits, 1
.Lx19:  .asciz  "x19"
.Lx20:  .asciz  "x20"
.Lx21:  .asciz  "x21"
.Lx22:  .asciz  "x22"
.Lx23:  .asciz  "x23"
.Lx24:  .asciz  "x24"
.Lx25:  .asciz  "x25"
.Lx26:  .asciz  "x26"
.Lx27:  .asciz  "x27"
.Lx28:  .asciz  "x28"
.Lx29:  .asciz  "x29"
.Ld8:   .asciz  "d8"
.Ld9:   .asciz  "d9"
.Ld10:  .asciz  "d10"
.Ld11:  .asciz  "d11"
.Ld12:  .asciz  "d12"
.Ld13:  .asciz  "d13"
.Ld14:  .asciz  "d14"
.Ld15:  .asciz  "d15"
        .section .data.rel.ro, "aw"
        .globl  weft_probe_callee_saved_names
        .p2align 3
weft_probe_callee_saved_names:
        .xword  .Lx19, .Lx20, .Lx21, .Lx22, .Lx23, .Lx24, .Lx25, .Lx26, .Lx27, .Lx28, .Lx29
        .xword  .Ld8, .Ld9, .Ld10, .Ld11, .Ld12, .Ld13, .Ld14, .Ld15

        weft_object_notes
