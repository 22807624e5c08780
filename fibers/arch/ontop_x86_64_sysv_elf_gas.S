/* weft_ontop_fcontext for x86_64 System V: switch to another fiber and run a function on top of its stack first. */

/*
 * transfer_t weft_ontop_fcontext(fcontext_t to, void* data, transfer_t (*fn)(transfer_t));
 *   rdi = to, rsi = data, rdx = fn
 * Suspends the running fiber exactly like weft_jump_fcontext, then calls
 * fn({our fcontext, data}) on the target's stack as if the target's own pending
 * switch call had called it: fn's return address is the target's resume address,
 * so what fn returns (in rax:rdx) becomes the target's transfer_t. For a fresh
 * target that resume address is the trampoline, which passes the value to the
 * entry function. Used for fiber_context::resume_with() and for freeing a
 * finished fiber's stack from the context that runs next.
 *
 * An exception thrown by fn unwinds into the target's pending switch call (the
 * registers fn sees are the target's), or reaches the trampoline of a fresh
 * target, whose CFI ends the stack so std::terminate runs.
 *
 * Saved frame (same as jump_x86_64_sysv_elf_gas.S; offsets from the fcontext):
 *
 *   -------------------------------------------------------------------------
 *   | 0x00     | 0x04     | 0x08  | 0x10 | 0x18 | 0x20 | 0x28 | 0x30 | 0x38 | 0x40 |
 *   | MXCSR    | x87 CW   | owner | R12  | R13  | R14  | R15  | RBX  | RBP  | RIP  |
 *   -------------------------------------------------------------------------
 */

#include "fibers/arch/layout_x86_64_sysv.h"

        .file   "ontop_x86_64_sysv_elf_gas.S"
        .text
        .globl  weft_ontop_fcontext
        .hidden weft_ontop_fcontext
        .type   weft_ontop_fcontext, @function
        .p2align 4
weft_ontop_fcontext:
        .cfi_startproc
        WEFT_ENDBR                                  /* IBT landing pad: may be reached through a pointer */
        movq    %rdx, %r8                           /* keep fn in a scratch register the switch does not touch */
        leaq    -WEFT_FCTX_RESERVE(%rsp), %rsp      /* reserve the frame below our return address (RIP slot) */
        .cfi_adjust_cfa_offset WEFT_FCTX_RESERVE
        stmxcsr WEFT_FCTX_MXCSR(%rsp)               /* save MXCSR (its control bits are callee-saved) */
        fnstcw  WEFT_FCTX_X87CW(%rsp)               /* save the x87 control word (callee-saved) */
        movq    %fs:0, %rcx                         /* thread pointer = identity of the running thread */
        movq    %rcx, WEFT_FCTX_OWNER(%rsp)         /* the suspending fiber is owned by this thread */
        movq    %r12, WEFT_FCTX_R12(%rsp)           /* save R12 */
        .cfi_rel_offset r12, WEFT_FCTX_R12
        movq    %r13, WEFT_FCTX_R13(%rsp)           /* save R13 */
        .cfi_rel_offset r13, WEFT_FCTX_R13
        movq    %r14, WEFT_FCTX_R14(%rsp)           /* save R14 */
        .cfi_rel_offset r14, WEFT_FCTX_R14
        movq    %r15, WEFT_FCTX_R15(%rsp)           /* save R15 */
        .cfi_rel_offset r15, WEFT_FCTX_R15
        movq    %rbx, WEFT_FCTX_RBX(%rsp)           /* save RBX */
        .cfi_rel_offset rbx, WEFT_FCTX_RBX
        movq    %rbp, WEFT_FCTX_RBP(%rsp)           /* save RBP */
        .cfi_rel_offset rbp, WEFT_FCTX_RBP

        movq    %rsp, %rax                          /* rax = our fcontext */
        movq    %rdi, %rsp                          /* switch stacks: from here on we run as the target */

        ldmxcsr WEFT_FCTX_MXCSR(%rsp)               /* the target's MXCSR, unconditionally (jump_x86_64_sysv_elf_gas.S says why) */
        movzwl  WEFT_FCTX_X87CW(%rax), %ecx         /* our x87 control word */
        cmpw    WEFT_FCTX_X87CW(%rsp), %cx          /* same as the target's? */
        jne     .Lload_x87cw                        /* rare: different x87 precision/rounding */
.Lx87cw_done:
        .cfi_remember_state
        movq    WEFT_FCTX_R12(%rsp), %r12           /* restore R12 */
        movq    WEFT_FCTX_R13(%rsp), %r13           /* restore R13 */
        movq    WEFT_FCTX_R14(%rsp), %r14           /* restore R14 */
        movq    WEFT_FCTX_R15(%rsp), %r15           /* restore R15 */
        movq    WEFT_FCTX_RBX(%rsp), %rbx           /* restore RBX */
        movq    WEFT_FCTX_RBP(%rsp), %rbp           /* restore RBP */
        leaq    WEFT_FCTX_RESERVE(%rsp), %rsp       /* pop the frame but keep RIP: it becomes fn's return address */
        .cfi_adjust_cfa_offset -WEFT_FCTX_RESERVE
        movq    %rax, %rdi                          /* fn's argument: transfer_t{our fcontext, ...} */
                                                    /* ... rsi still holds data, its second half */
        jmp     *%r8                                /* tail-call fn (a C++ function: has its own ENDBR) */
        .cfi_restore_state                          /* the out-of-line reloads below still run inside the frame */

.Lload_x87cw:
        fldcw   WEFT_FCTX_X87CW(%rsp)               /* take over the target's x87 control word */
        jmp     .Lx87cw_done
        .cfi_endproc
        .size   weft_ontop_fcontext, .-weft_ontop_fcontext

        weft_object_notes
