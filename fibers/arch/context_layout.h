// Dispatch to the saved-context frame layout of the target architecture (shared by C++ and the .S files).
//
// The build compiles exactly one set of fibers/arch/{jump,make,ontop}_<arch>_<abi>_elf_gas.S;
// this header gives C++ the matching offsets. Nothing else in fibers/ is architecture-specific.
#pragma once

#if defined(__x86_64__)
#include "fibers/arch/layout_x86_64_sysv.h"
#elif defined(__aarch64__)
#include "fibers/arch/layout_arm64_aapcs.h"
#else
#error Unsupported architecture
#endif
