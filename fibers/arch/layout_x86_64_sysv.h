// Saved-context frame of an x86_64 System V fiber: byte offsets from the fcontext pointer.
//
// A suspended fiber's CPU state lives on its own stack, directly below the return
// address its call to weft_jump_fcontext/weft_ontop_fcontext pushed; the fcontext is
// the stack pointer after the frame was reserved. Only what the SysV ABI makes
// callee-saved is kept: RBX, RBP, R12-R15, the MXCSR control bits and the x87
// control word (plus RSP itself, implied by the fcontext, and RIP).
//
//   offset  size  contents
//   0x00    4     MXCSR
//   0x04    2     x87 control word          (0x06..0x07 unused)
//   0x08    8     owner: thread pointer (%fs:0) of the thread that suspended the fiber, 0 = never run
//   0x10    8     R12      (fresh context: entry function)
//   0x18    8     R13      (fresh context: entry argument)
//   0x20    8     R14
//   0x28    8     R15
//   0x30    8     RBX
//   0x38    8     RBP      (fresh context: 0, ends frame-pointer chains)
//   0x40    8     RIP: resume address (the caller's return address; fresh context: trampoline)
//
// Plain preprocessor constants so the .S files can include this header too.
#pragma once

#define WEFT_FCTX_MXCSR 0x00
#define WEFT_FCTX_X87CW 0x04
#define WEFT_FCTX_OWNER 0x08
#define WEFT_FCTX_R12 0x10
#define WEFT_FCTX_R13 0x18
#define WEFT_FCTX_R14 0x20
#define WEFT_FCTX_R15 0x28
#define WEFT_FCTX_RBX 0x30
#define WEFT_FCTX_RBP 0x38
#define WEFT_FCTX_RIP 0x40
// Bytes a switch reserves below the return address (everything but RIP).
#define WEFT_FCTX_RESERVE 0x40
// Whole frame including RIP.
#define WEFT_FCTX_SIZE 0x48
// Bytes weft_make_fcontext uses below the aligned stack top (frame + alignment padding).
#define WEFT_FCTX_FRESH_BYTES (WEFT_FCTX_SIZE + 16)
// MXCSR bits 6..15 (DAZ, exception masks, rounding control, FTZ) are callee-saved;
// bits 0..5 are sticky exception flags, which the ABI leaves to the caller.
#define WEFT_MXCSR_CONTROL_MASK 0xffc0

#ifdef __ASSEMBLER__
// Intel CET: an ENDBR64 landing pad wherever an indirect branch may land, and a
// GNU property note that marks the object IBT-compatible when the build asks for
// it (-fcf-protection). We never claim SHSTK: a hardware shadow stack cannot
// follow a switch to another fiber's stack, so the linker must not enable it.
#if defined(__CET__) && (__CET__ & 1)
#define WEFT_ENDBR endbr64
#define WEFT_IBT_PROPERTY 1
#else
#define WEFT_ENDBR
#define WEFT_IBT_PROPERTY 0
#endif

// Notes every fiber object file carries: a non-executable stack and, if enabled, IBT.
.macro weft_object_notes
        .section .note.GNU-stack, "", @progbits
#if WEFT_IBT_PROPERTY
        .pushsection .note.gnu.property, "a"
        .p2align 3
        .long 4                 // name size ("GNU\0")
        .long 16                // descriptor size
        .long 5                 // NT_GNU_PROPERTY_TYPE_0
        .asciz "GNU"
        .long 0xc0000002        // GNU_PROPERTY_X86_FEATURE_1_AND
        .long 4                 // property data size
        .long 1                 // GNU_PROPERTY_X86_FEATURE_1_IBT (not SHSTK, see above)
        .p2align 3
        .popsection
#endif
.endm
#endif  // __ASSEMBLER__
