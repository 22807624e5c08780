/* weft_jump_fcontext for x86_64 System V: suspend the running fiber on its own stack and resume another. */

/*
 * transfer_t weft_jump_fcontext(fcontext_t to, void* data);
 *   rdi = to    the target's fcontext (its saved frame, see below)
 *   rsi = data  passed through to the target
 * The target resumes with rax = fcontext of the fiber that just suspended and
 * rdx = data: for a suspended target that is the return value of its own switch
 * call; for a fresh one the trampoline (make_*.S) turns it into arguments.
 *
 * Saved frame, built on the suspending fiber's stack below the return address our
 * caller pushed (offsets from the fcontext = RSP after the frame is reserved):
 *
 *   -------------------------------------------------------------------------
 *   | 0x00     | 0x04     | 0x08  | 0x10 | 0x18 | 0x20 | 0x28 | 0x30 | 0x38 | 0x40 |
 *   | MXCSR    | x87 CW   | owner | R12  | R13  | R14  | R15  | RBX  | RBP  | RIP  |
 *   -------------------------------------------------------------------------
 *   MXCSR 4 bytes, x87 CW 2 bytes (+2 unused); owner = %fs:0 of the thread that
 *   suspended the fiber (fiber_context::can_resume() compares it with the caller's).
 *   Offsets are named in fibers/arch/layout_x86_64_sysv.h, shared with C++.
 *
 * Only callee-saved state is kept: everything else is already dead at a call.
 * FP control words, measured on AMD EPYC (bench/fiber_switch, docs/performance.md
 * P1): MXCSR is reloaded unconditionally, as Boost.Context does, because
 * comparing first means loading the word STMXCSR has just stored, which is not
 * forwarded and stalls (ping-pong 13.1 ns with the compare, 11.0 without;
 * Boost 11.0). The x87 control word is compared and reloaded only when it
 * differs: FNSTCW's store forwards, and skipping the slow FLDCW takes the
 * ping-pong to 10.1 ns. (The sticky MXCSR flags travel with the context; the
 * ABI leaves them to the caller, so that is allowed.)
 *
 * Return prediction. Two entry points differ only in how they resume:
 *  - weft_jump_fcontext ends in an indirect JMP. Right for contexts that switch
 *    from different call sites (fiber_context::resume() inlined into each
 *    caller, as in a ping-pong): no RET is executed, so the return-stack
 *    predictor is not consulted, and the indirect-branch predictor learns
 *    where each site's jump goes.
 *  - weft_jump_fcontext_ret ends in RET. Right when every context switches from
 *    one shared call site (weft's Wasm fiber runtime, FiberRuntime::transfer):
 *    the resume address is then the same return address the predictor has on
 *    top, and the calls and returns the two contexts make afterwards stay paired.
 *    With a JMP there, each switch leaves one return-stack entry unpopped and
 *    every later return of the resumed context is predicted one entry off.
 */

#include "fibers/arch/layout_x86_64_sysv.h"

        .file   "jump_x86_64_sysv_elf_gas.S"
        .text

/* The whole switch, parameterised by how it resumes the target (see above). */
.macro weft_switch_fcontext name, resume_by_ret
        .globl  \name
        .hidden \name
        .type   \name, @function
        .p2align 4
\name:
        .cfi_startproc
        WEFT_ENDBR                                  /* IBT landing pad: may be reached through a pointer */
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

        movq    %rsp, %rax                          /* rax = our fcontext: first half of the target's transfer_t */
        movq    %rdi, %rsp                          /* switch stacks: from here on we run as the target (same frame shape, so the CFI still holds) */

        ldmxcsr WEFT_FCTX_MXCSR(%rsp)               /* the target's MXCSR (unconditionally, see above) */
        movzwl  WEFT_FCTX_X87CW(%rax), %ecx         /* our x87 control word, as just saved */
        cmpw    WEFT_FCTX_X87CW(%rsp), %cx          /* the same as the target's? */
        jne     .Lload_x87cw_\@                     /* rare: a different x87 precision/rounding */
.Lx87cw_done_\@:
        .cfi_remember_state
        movq    WEFT_FCTX_R12(%rsp), %r12           /* restore R12 */
        movq    WEFT_FCTX_R13(%rsp), %r13           /* restore R13 */
        movq    WEFT_FCTX_R14(%rsp), %r14           /* restore R14 */
        movq    WEFT_FCTX_R15(%rsp), %r15           /* restore R15 */
        movq    WEFT_FCTX_RBX(%rsp), %rbx           /* restore RBX */
        movq    WEFT_FCTX_RBP(%rsp), %rbp           /* restore RBP */
        movq    %rsi, %rdx                          /* rdx = data: second half of the transfer_t */
.if \resume_by_ret
        leaq    WEFT_FCTX_RESERVE(%rsp), %rsp       /* pop the frame: RSP points at the target's resume address */
        .cfi_def_cfa_offset 8
        ret                                         /* resume: pops the RIP slot */
.else
        movq    WEFT_FCTX_RIP(%rsp), %r8            /* resume address of the target */
        .cfi_register rip, r8
        leaq    WEFT_FCTX_SIZE(%rsp), %rsp          /* pop the frame and the RIP slot: RSP is the target's again */
        .cfi_def_cfa_offset 0
        notrack jmp *%r8                            /* resume */
.endif
.Lload_x87cw_\@:
        .cfi_restore_state
        fldcw   WEFT_FCTX_X87CW(%rsp)               /* take over the target's x87 control word */
        jmp     .Lx87cw_done_\@
        .cfi_endproc
        .size   \name, .-\name
.endm

        weft_switch_fcontext weft_jump_fcontext, 0
        weft_switch_fcontext weft_jump_fcontext_ret, 1

        weft_object_notes
