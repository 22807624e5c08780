/* weft_jump_fcontext for AArch64 AAPCS64: suspend the running fiber on its own stack and resume another. */

/*
 * transfer_t weft_jump_fcontext(fcontext_t to, void* data);
 *   x0 = to    the target's fcontext (its saved frame, see below)
 *   x1 = data  passed through to the target
 * The target resumes with x0 = fcontext of the fiber that just suspended and
 * x1 = data: for a suspended target that is the return value of its own switch
 * call; for a fresh one the trampoline (make_*.S) turns it into arguments.
 *
 * Saved frame, built on the suspending fiber's stack (offsets from the fcontext =
 * SP after the frame is reserved; names in fibers/arch/layout_arm64_aapcs.h):
 *
 *   -----------------------------------------------------------------
 *   | 0x00 | 0x08 | 0x10 | 0x18 | 0x20 | 0x28 | 0x30 | 0x38 |
 *   |  D8  |  D9  | D10  | D11  | D12  | D13  | D14  | D15  |
 *   -----------------------------------------------------------------
 *   | 0x40 | 0x48 | 0x50 | 0x58 | 0x60 | 0x68 | 0x70 | 0x78 |
 *   | X19  | X20  | X21  | X22  | X23  | X24  | X25  | X26  |
 *   -----------------------------------------------------------------
 *   | 0x80 | 0x88 | 0x90 | 0x98 | 0xa0 | 0xa8 |
 *   | X27  | X28  | FP   | LR   | FPCR | owner|   0xb0 bytes, 16-byte aligned
 *   -----------------------------------------------------------------
 *   LR doubles as the resume address; owner = TPIDR_EL0 of the thread that
 *   suspended the fiber (fiber_context::can_resume() compares it with the caller's).
 *
 * Only callee-saved state is kept (AAPCS64: X19-X29, LR, the low 64 bits of
 * V8-V15). FPCR is kept per fiber like MXCSR on x86_64 and reloaded only when
 * the target's differs: MSR FPCR can be slow, and fibers rarely change FP modes.
 * FPSR (cumulative exception flags) is not callee-saved and is left alone.
 */

#include "fibers/arch/layout_arm64_aapcs.h"

        .file   "jump_arm64_aapcs_elf_gas.S"
        .text
        .globl  weft_jump_fcontext
        .hidden weft_jump_fcontext
        .type   weft_jump_fcontext, %function
        .p2align 4
weft_jump_fcontext:
        .cfi_startproc
        WEFT_BTI_C                                  // BTI landing pad: may be reached through a pointer
        sub     sp, sp, #WEFT_FCTX_SIZE             // reserve the frame on our own stack
        .cfi_def_cfa_offset WEFT_FCTX_SIZE
        stp     d8,  d9,  [sp, #WEFT_FCTX_D8]       // save D8, D9
        stp     d10, d11, [sp, #WEFT_FCTX_D10]      // save D10, D11
        stp     d12, d13, [sp, #WEFT_FCTX_D12]      // save D12, D13
        stp     d14, d15, [sp, #WEFT_FCTX_D14]      // save D14, D15
        stp     x19, x20, [sp, #WEFT_FCTX_X19]      // save X19, X20
        stp     x21, x22, [sp, #WEFT_FCTX_X21]      // save X21, X22
        stp     x23, x24, [sp, #WEFT_FCTX_X23]      // save X23, X24
        stp     x25, x26, [sp, #WEFT_FCTX_X25]      // save X25, X26
        stp     x27, x28, [sp, #WEFT_FCTX_X27]      // save X27, X28
        stp     x29, x30, [sp, #WEFT_FCTX_FP]       // save FP and LR (LR = where we resume)
        .cfi_rel_offset x29, WEFT_FCTX_FP
        .cfi_rel_offset x30, WEFT_FCTX_LR
        mrs     x9, fpcr                            // x9 = our FP control register
        mrs     x10, tpidr_el0                      // x10 = thread pointer = identity of the running thread
        stp     x9, x10, [sp, #WEFT_FCTX_FPCR]      // save FPCR and the owner (this thread)

        mov     x2, sp                              // x2 = our fcontext: first half of the target's transfer_t
        mov     sp, x0                              // switch stacks: from here on we run as the target (same frame shape, so the CFI still holds)

        ldr     x10, [sp, #WEFT_FCTX_FPCR]          // the target's saved FPCR
        cmp     x9, x10                             // same FP mode as ours?
        b.ne    .Lload_fpcr                         // rare: the fibers run in different FP modes
.Lfpcr_done:
        .cfi_remember_state
        ldp     d8,  d9,  [sp, #WEFT_FCTX_D8]       // restore D8, D9
        ldp     d10, d11, [sp, #WEFT_FCTX_D10]      // restore D10, D11
        ldp     d12, d13, [sp, #WEFT_FCTX_D12]      // restore D12, D13
        ldp     d14, d15, [sp, #WEFT_FCTX_D14]      // restore D14, D15
        ldp     x19, x20, [sp, #WEFT_FCTX_X19]      // restore X19, X20
        ldp     x21, x22, [sp, #WEFT_FCTX_X21]      // restore X21, X22
        ldp     x23, x24, [sp, #WEFT_FCTX_X23]      // restore X23, X24
        ldp     x25, x26, [sp, #WEFT_FCTX_X25]      // restore X25, X26
        ldp     x27, x28, [sp, #WEFT_FCTX_X27]      // restore X27, X28
        ldp     x29, x30, [sp, #WEFT_FCTX_FP]       // restore FP and LR (the target's resume address)
        add     sp, sp, #WEFT_FCTX_SIZE             // pop the frame: SP is the target's again
        .cfi_def_cfa_offset 0
        .cfi_restore x29
        .cfi_restore x30
        mov     x0, x2                              // x0 = our fcontext; x1 still holds data
        ret                                         // resume the target (RET to LR: exempt from BTI checks)
        .cfi_restore_state                          // the out-of-line reload below still runs inside the frame

.Lload_fpcr:
        msr     fpcr, x10                           // take over the target's FP control register
        b       .Lfpcr_done
        .cfi_endproc
        .size   weft_jump_fcontext, .-weft_jump_fcontext

/* The x86_64 switch has a second entry that resumes by RET instead of an
 * indirect jump (see jump_x86_64_sysv_elf_gas.S, "Return prediction"). This
 * one already resumes by RET, so both names are the same code here. */
        .globl  weft_jump_fcontext_ret
        .hidden weft_jump_fcontext_ret
        .type   weft_jump_fcontext_ret, %function
        .set    weft_jump_fcontext_ret, weft_jump_fcontext

        weft_object_notes
