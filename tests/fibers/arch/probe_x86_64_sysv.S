/* Test probes for x86_64 System V: callee-saved register survival and the stack pointer. */

#include "fibers/arch/layout_x86_64_sysv.h"

        .text
/*
 * uint64_t weft_probe_callee_saved(uint64_t seed, void (*fn)(void*), void* arg);
 * Checks RBX, RBP, R12-R15 (bits 0-5). SSE registers are all caller-saved in SysV.
 */
        .globl  weft_probe_callee_saved
        .type   weft_probe_callee_saved, @function
        .p2align 4
weft_probe_callee_saved:
        WEFT_ENDBR
        pushq   %rbx                        /* keep the caller's callee-saved registers */
        pushq   %rbp
        pushq   %r12
        pushq   %r13
        pushq   %r14
        pushq   %r15
        subq    $8, %rsp                    /* 6 pushes + 8 keeps RSP 16-byte aligned for the call */
        movq    %rdi, (%rsp)                /* remember the seed */
        movq    %rdi, %rbx                  /* RBX = seed + 0 */
        leaq    1(%rdi), %rbp               /* RBP = seed + 1 */
        leaq    2(%rdi), %r12               /* R12 = seed + 2 */
        leaq    3(%rdi), %r13               /* R13 = seed + 3 */
        leaq    4(%rdi), %r14               /* R14 = seed + 4 */
        leaq    5(%rdi), %r15               /* R15 = seed + 5 */
        movq    %rsi, %rax                  /* fn */
        movq    %rdx, %rdi                  /* fn's argument */
        call    *%rax                       /* fn(arg): switches fibers while we hold the pattern */
        movq    (%rsp), %rcx                /* seed */
        xorl    %eax, %eax                  /* mask of mismatches */
        xorl    %edx, %edx
        cmpq    %rcx, %rbx                  /* RBX still seed + 0? */
        setne   %dl
        orq     %rdx, %rax                  /* bit 0 */
        leaq    1(%rcx), %rsi
        cmpq    %rsi, %rbp                  /* RBP */
        setne   %dl
        shlq    $1, %rdx
        orq     %rdx, %rax                  /* bit 1 */
        xorl    %edx, %edx
        leaq    2(%rcx), %rsi
        cmpq    %rsi, %r12                  /* R12 */
        setne   %dl
        shlq    $2, %rdx
        orq     %rdx, %rax                  /* bit 2 */
        xorl    %edx, %edx
        leaq    3(%rcx), %rsi
        cmpq    %rsi, %r13                  /* R13 */
        setne   %dl
        shlq    $3, %rdx
        orq     %rdx, %rax                  /* bit 3 */
        xorl    %edx, %edx
        leaq    4(%rcx), %rsi
        cmpq    %rsi, %r14                  /* R14 */
        setne   %dl
        shlq    $4, %rdx
        orq     %rdx, %rax                  /* bit 4 */
        xorl    %edx, %edx
        leaq    5(%rcx), %rsi
        cmpq    %rsi, %r15                  /* R15 */
        setne   %dl
        shlq    $5, %rdx
        orq     %rdx, %rax                  /* bit 5 */
        addq    $8, %rsp
        popq    %r15                        /* give the caller its registers back */
        popq    %r14
        popq    %r13
        popq    %r12
        popq    %rbp
        popq    %rbx
        ret
        .size   weft_probe_callee_saved, .-weft_probe_callee_saved

/* uintptr_t weft_probe_stack_pointer(void): RSP at the call site, i.e. before the CALL pushed. */
        .globl  weft_probe_stack_pointer
        .type   weft_probe_stack_pointer, @function
        .p2align 4
weft_probe_stack_pointer:
        WEFT_ENDBR
        leaq    8(%rsp), %rax
        ret
        .size   weft_probe_stack_pointer, .-weft_probe_stack_pointer

        .section .rodata
        .globl  weft_probe_callee_saved_count
        .p2align 2
weft_probe_callee_saved_count:
        .long   6
        .section .rodata.str1.1, "aMS", @progbits, 1
.Lrbx:  .asciz  "rbx"
.Lrbp:  .asciz  "rbp"
.Lr12:  .asciz  "r12"
.Lr13:  .asciz  "r13"
.Lr14:  .asciz  "r14"
.Lr15:  .asciz  "r15"
        .section .data.rel.ro, "aw"
        .globl  weft_probe_callee_saved_names
        .p2align 3
weft_probe_callee_saved_names:
        .quad   .Lrbx, .Lrbp, .Lr12, .Lr13, .Lr14, .Lr15

        weft_object_notes
