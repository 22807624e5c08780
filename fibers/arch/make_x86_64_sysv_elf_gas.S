/* weft_make_fcontext for x86_64 System V: lay out a fresh fiber's first frame so a switch enters its trampoline. */

/*
 * fcontext_t weft_make_fcontext(void* stack_top, void (*entry)(transfer_t, void*), void* arg);
 *   rdi = stack_top  highest address of the usable stack (aligned down to 16 here)
 *   rsi = entry      called on the new stack as entry({fctx, data}, arg); must not return
 *   rdx = arg        passed through (fiber_context passes its control record)
 * Returns the fcontext of a fiber suspended "before entry". No memory other than
 * the frame below stack_top is touched.
 *
 * Frame (offsets from the returned fcontext, layout_x86_64_sysv.h):
 *
 *   -------------------------------------------------------------------------------------
 *   | 0x00  | 0x04   | 0x08  | 0x10  | 0x18 | 0x20 | 0x28 | 0x30 | 0x38 | 0x40       | 0x48..0x57 |
 *   | MXCSR | x87 CW | 0     | entry | arg  | 0    | 0    | 0    | 0    | trampoline | padding    |
 *   -------------------------------------------------------------------------------------
 *   owner 0 = never run (any thread may start it); R12 = entry, R13 = arg, the rest 0.
 *   The fiber inherits the creator's MXCSR and x87 control word.
 *
 * Alignment: a switch pops the frame including RIP, so the trampoline starts with
 * RSP = fcontext + 0x48; placing the fcontext at top - 0x58 makes that 16-byte
 * aligned, as the ABI requires at the trampoline's CALL. An ontop function runs
 * with RSP = fcontext + 0x40, i.e. 8 mod 16 like any function entry.
 */

#include "fibers/arch/layout_x86_64_sysv.h"

        .file   "make_x86_64_sysv_elf_gas.S"
        .text
        .globl  weft_make_fcontext
        .hidden weft_make_fcontext
        .type   weft_make_fcontext, @function
        .p2align 4
weft_make_fcontext:
        .cfi_startproc
        WEFT_ENDBR                                  /* IBT landing pad: may be reached through a pointer */
        movq    %rdi, %rax                          /* rax = stack top */
        andq    $-16, %rax                          /* align it down to 16 bytes */
        leaq    -(WEFT_FCTX_SIZE + 16)(%rax), %rax  /* fcontext = top - 0x58 (see alignment note above) */
        stmxcsr WEFT_FCTX_MXCSR(%rax)               /* the new fiber starts with the creator's MXCSR ... */
        fnstcw  WEFT_FCTX_X87CW(%rax)               /* ... and x87 control word */
        movq    $0, WEFT_FCTX_OWNER(%rax)           /* no owning thread until it first runs */
        movq    %rsi, WEFT_FCTX_R12(%rax)           /* R12 = entry, for the trampoline */
        movq    %rdx, WEFT_FCTX_R13(%rax)           /* R13 = arg, for the trampoline */
        movq    $0, WEFT_FCTX_R14(%rax)             /* R14, R15, RBX = 0: a defined start state, not stale stack contents */
        movq    $0, WEFT_FCTX_R15(%rax)
        movq    $0, WEFT_FCTX_RBX(%rax)
        movq    $0, WEFT_FCTX_RBP(%rax)             /* RBP = 0: frame-pointer walks stop here */
        leaq    weft_fcontext_trampoline(%rip), %rcx /* the first switch "returns" into the trampoline */
        movq    %rcx, WEFT_FCTX_RIP(%rax)           /* store it as the resume address */
        ret                                         /* return the fcontext in rax */
        .cfi_endproc
        .size   weft_make_fcontext, .-weft_make_fcontext

/*
 * First code a fiber runs. Reached by weft_jump_fcontext's jump (rax:rdx = the
 * transfer_t) or by the return of an ontop function (its return value, also in
 * rax:rdx); R12/R13 were restored from the frame above.
 */
        .type   weft_fcontext_trampoline, @function
        .p2align 4
        .cfi_startproc
        .cfi_undefined rip                          /* outermost frame: unwinding (and an escaping exception) stops here */
        nop                                         /* unwinders look up a return address minus one: an ontop function  */
                                                    /* returning here must still find this FDE, not weft_make_fcontext's */
weft_fcontext_trampoline:
        WEFT_ENDBR                                  /* IBT landing pad: reached by an indirect jump */
        movq    %rax, %rdi                          /* arg 1: transfer_t.fctx, the context that switched to us */
        movq    %rdx, %rsi                          /* arg 1: transfer_t.data */
        movq    %r13, %rdx                          /* arg 2: the entry argument */
        call    *%r12                               /* entry(transfer, arg); RSP is 16-byte aligned here */
        ud2                                         /* entry never returns: it leaves by switching away */
        .cfi_endproc
        .size   weft_fcontext_trampoline, .-weft_fcontext_trampoline

        weft_object_notes
