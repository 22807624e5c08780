/* weft_make_fcontext for AArch64 AAPCS64: lay out a fresh fiber's first frame so a switch enters its trampoline. */

/*
 * fcontext_t weft_make_fcontext(void* stack_top, void (*entry)(transfer_t, void*), void* arg);
 *   x0 = stack_top  highest address of the usable stack (aligned down to 16 here)
 *   x1 = entry      called on the new stack as entry({fctx, data}, arg); must not return
 *   x2 = arg        passed through (fiber_context passes its control record)
 * Returns the fcontext of a fiber suspended "before entry". No memory other than
 * the frame below stack_top is touched.
 *
 * Frame (offsets from the returned fcontext, layout_arm64_aapcs.h):
 *
 *   -----------------------------------------------------------------
 *   | 0x00 .. 0x38   | 0x40  | 0x48 | 0x50 .. 0x88 | 0x90 | 0x98       | 0xa0 | 0xa8 |
 *   | D8-D15 = 0     | entry | arg  | X21-X28 = 0  | 0    | trampoline | FPCR | 0    |
 *   -----------------------------------------------------------------
 *   X19 = entry, X20 = arg, FP = 0 ends frame-record chains, LR = trampoline,
 *   FPCR = the creator's, owner 0 = never run (any thread may start it).
 *   The frame ends exactly at the aligned top, so the trampoline starts with a
 *   16-byte aligned SP (AArch64 requires SP to be aligned at all times).
 */

#include "fibers/arch/layout_arm64_aapcs.h"

        .file   "make_arm64_aapcs_elf_gas.S"
        .text
        .globl  weft_make_fcontext
        .hidden weft_make_fcontext
        .type   weft_make_fcontext, %function
        .p2align 4
weft_make_fcontext:
        .cfi_startproc
        WEFT_BTI_C                                  // BTI landing pad: may be reached through a pointer
        and     x0, x0, #~15                        // align the stack top down to 16 bytes
        sub     x0, x0, #WEFT_FCTX_SIZE             // x0 = fcontext: the frame sits right below the top
        stp     xzr, xzr, [x0, #WEFT_FCTX_D8]       // D8-D15 = 0: a fresh fiber starts from a defined state ...
        stp     xzr, xzr, [x0, #WEFT_FCTX_D10]
        stp     xzr, xzr, [x0, #WEFT_FCTX_D12]
        stp     xzr, xzr, [x0, #WEFT_FCTX_D14]
        stp     x1, x2, [x0, #WEFT_FCTX_X19]        // X19 = entry, X20 = arg, for the trampoline
        stp     xzr, xzr, [x0, #WEFT_FCTX_X21]      // ... and X21-X28 = 0, not stale stack contents
        stp     xzr, xzr, [x0, #WEFT_FCTX_X23]
        stp     xzr, xzr, [x0, #WEFT_FCTX_X25]
        stp     xzr, xzr, [x0, #WEFT_FCTX_X27]
        adr     x3, weft_fcontext_trampoline        // the first switch "returns" into the trampoline
        stp     xzr, x3, [x0, #WEFT_FCTX_FP]        // FP = 0, LR = trampoline
        mrs     x4, fpcr                            // the new fiber starts with the creator's FP mode
        stp     x4, xzr, [x0, #WEFT_FCTX_FPCR]      // FPCR, owner = 0 (no owning thread until it first runs)
        ret                                         // return the fcontext in x0
        .cfi_endproc
        .size   weft_make_fcontext, .-weft_make_fcontext

/*
 * First code a fiber runs. Reached by weft_jump_fcontext's RET (x0:x1 = the
 * transfer_t) or by the return of an ontop function (its return value, also in
 * x0:x1); X19/X20 were restored from the frame above. RET targets need no BTI pad.
 */
        .type   weft_fcontext_trampoline, %function
        .p2align 4
        .cfi_startproc
        .cfi_undefined x30                          // outermost frame: unwinding (and an escaping exception) stops here
        nop                                         // unwinders look up a return address minus one: an ontop function
                                                    // returning here must still find this FDE, not weft_make_fcontext's
weft_fcontext_trampoline:
        mov     x2, x20                             // arg 2: the entry argument (x0:x1 = transfer_t already)
        blr     x19                                 // entry(transfer, arg)
        brk     #0                                  // entry never returns: it leaves by switching away
        .cfi_endproc
        .size   weft_fcontext_trampoline, .-weft_fcontext_trampoline

        weft_object_notes
