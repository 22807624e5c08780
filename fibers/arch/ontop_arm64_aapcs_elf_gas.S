/* weft_ontop_fcontext for AArch64 AAPCS64: switch to another fiber and run a function on top of its stack first. */

/*
 * transfer_t weft_ontop_fcontext(fcontext_t to, void* data, transfer_t (*fn)(transfer_t));
 *   x0 = to, x1 = data, x2 = fn
 * Suspends the running fiber exactly like weft_jump_fcontext, then calls
 * fn({our fcontext, data}) on the target's stack as if the target's own pending
 * switch call had called it: LR is the target's resume address, so what fn
 * returns (in x0:x1) becomes the target's transfer_t. For a fresh target LR is
 * the trampoline, which passes the value to the entry function. Used for
 * fiber_context::resume_with() and for freeing a finished fiber's stack from
 * the context that runs next.
 *
 * An exception thrown by fn unwinds into the target's pending switch call (the
 * registers fn sees are the target's), or reaches the trampoline of a fresh
 * target, whose CFI ends the stack so std::terminate runs.
 *
 * Saved frame (same as jump_arm64_aapcs_elf_gas.S; offsets from the fcontext):
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
 */

#include "fibers/arch/layout_arm64_aapcs.h"

        .file   "ontop_arm64_aapcs_elf_gas.S"
        .text
        .globl  weft_ontop_fcontext
        .hidden weft_ontop_fcontext
        .type   weft_ontop_fcontext, %function
        .p2align 4
weft_ontop_fcontext:
        .cfi_startproc
        WEFT_BTI_C                                  // BTI landing pad: may be reached through a pointer
        mov     x16, x2                             // fn goes in X16: BR X16 may land on a BTI C pad (C++ entries have one)
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

        mov     x3, sp                              // x3 = our fcontext
        mov     sp, x0                              // switch stacks: from here on we run as the target

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
        ldp     x29, x30, [sp, #WEFT_FCTX_FP]       // restore FP and LR: LR becomes fn's return address
        add     sp, sp, #WEFT_FCTX_SIZE             // pop the frame: SP is the target's again
        .cfi_def_cfa_offset 0
        .cfi_restore x29
        .cfi_restore x30
        mov     x0, x3                              // fn's argument: transfer_t{our fcontext, data (still in x1)}
        br      x16                                 // tail-call fn
        .cfi_restore_state                          // the out-of-line reload below still runs inside the frame

.Lload_fpcr:
        msr     fpcr, x10                           // take over the target's FP control register
        b       .Lfpcr_done
        .cfi_endproc
        .size   weft_ontop_fcontext, .-weft_ontop_fcontext

        weft_object_notes
