// Saved-context frame of an AArch64 AAPCS64 fiber: byte offsets from the fcontext pointer.
//
// A suspended fiber's CPU state lives on its own stack; the fcontext is the stack
// pointer after weft_jump_fcontext/weft_ontop_fcontext reserved this frame. Only what
// AAPCS64 makes callee-saved is kept: X19-X28, FP (X29), LR (X30, which is also the
// resume address), D8-D15 (the low halves of V8-V15), and FPCR so each fiber keeps its
// own rounding/flush-to-zero mode (SP itself is implied by the fcontext).
//
//   offset  size  contents
//   0x00    8     D8        0x08  8  D9
//   0x10    8     D10       0x18  8  D11
//   0x20    8     D12       0x28  8  D13
//   0x30    8     D14       0x38  8  D15
//   0x40    8     X19 (fresh context: entry function)
//   0x48    8     X20 (fresh context: entry argument)
//   0x50    8     X21       0x58  8  X22
//   0x60    8     X23       0x68  8  X24
//   0x70    8     X25       0x78  8  X26
//   0x80    8     X27       0x88  8  X28
//   0x90    8     X29 / FP  (fresh context: 0, ends frame-record chains)
//   0x98    8     X30 / LR: resume address (fresh context: trampoline)
//   0xa0    8     FPCR
//   0xa8    8     owner: TPIDR_EL0 of the thread that suspended the fiber, 0 = never run
//   0xb0          end (the frame is 16-byte aligned, as SP must always be)
//
// Plain preprocessor constants so the .S files can include this header too.
#pragma once

#define WEFT_FCTX_D8 0x00
#define WEFT_FCTX_D10 0x10
#define WEFT_FCTX_D12 0x20
#define WEFT_FCTX_D14 0x30
#define WEFT_FCTX_X19 0x40
#define WEFT_FCTX_X21 0x50
#define WEFT_FCTX_X23 0x60
#define WEFT_FCTX_X25 0x70
#define WEFT_FCTX_X27 0x80
#define WEFT_FCTX_FP 0x90
#define WEFT_FCTX_LR 0x98
#define WEFT_FCTX_FPCR 0xa0
#define WEFT_FCTX_OWNER 0xa8
#define WEFT_FCTX_SIZE 0xb0
// Bytes weft_make_fcontext uses below the aligned stack top.
#define WEFT_FCTX_FRESH_BYTES WEFT_FCTX_SIZE

#ifdef __ASSEMBLER__
// Armv8.5 BTI / Armv8.3 PAC: a BTI C landing pad at every function entry and the
// GNU property note when the build uses -mbranch-protection. Our code never signs
// LR, and returns through a restored LR with RET, which BTI does not check.
#if defined(__ARM_FEATURE_BTI_DEFAULT) && __ARM_FEATURE_BTI_DEFAULT
#define WEFT_BTI_C bti c
#define WEFT_BTI_PROPERTY 1
#else
#define WEFT_BTI_C
#define WEFT_BTI_PROPERTY 0
#endif
#if defined(__ARM_FEATURE_PAC_DEFAULT) && __ARM_FEATURE_PAC_DEFAULT
#define WEFT_PAC_PROPERTY 2
#else
#define WEFT_PAC_PROPERTY 0
#endif

// Notes every fiber object file carries: a non-executable stack and, if enabled, BTI/PAC.
.macro weft_object_notes
        .section .note.GNU-stack, "", %progbits
#if WEFT_BTI_PROPERTY || WEFT_PAC_PROPERTY
        .pushsection .note.gnu.property, "a"
        .p2align 3
        .long 4                 // name size ("GNU\0")
        .long 16                // descriptor size
        .long 5                 // NT_GNU_PROPERTY_TYPE_0
        .asciz "GNU"
        .long 0xc0000000        // GNU_PROPERTY_AARCH64_FEATURE_1_AND
        .long 4                 // property data size
        .long WEFT_BTI_PROPERTY | WEFT_PAC_PROPERTY
        .p2align 3
        .popsection
#endif
.endm
#endif  // __ASSEMBLER__
