// Compiling a region of code for one instruction set, the same way under
// gcc and clang:
//
//   #define PROTOACCEL_KERNEL_TARGET "avx2,bmi,lzcnt,popcnt"
//   #include <...>                       every header first
//   PROTOACCEL_TARGET_BEGIN(PROTOACCEL_KERNEL_TARGET)
//   ... kernels ...
//   PROTOACCEL_TARGET_END
//
// Not -m flags on the file, and not a #pragma GCC target before the
// includes: either way the standard library's inline functions and
// templates would be compiled for the instruction set too, and the linker
// keeps one copy of each for the whole program, so a scalar caller could
// get an AVX-512 one. Inside the region only the file's own functions are
// defined; what they inline from outside was compiled for the baseline,
// which a function of a wider target may always inline. gcc's target
// pragma is not honoured by clang, which takes `clang attribute` instead.

#ifndef PROTOACCEL_DISPATCH_TARGET_H_
#define PROTOACCEL_DISPATCH_TARGET_H_

#define PROTOACCEL_PRAGMA(text) _Pragma(#text)

#if defined(__clang__)
#define PROTOACCEL_TARGET_BEGIN(isa) \
  PROTOACCEL_PRAGMA(clang attribute push(__attribute__((target(isa))), apply_to = function))
#define PROTOACCEL_TARGET_END PROTOACCEL_PRAGMA(clang attribute pop)
#elif defined(__GNUC__)
#define PROTOACCEL_TARGET_BEGIN(isa) \
  PROTOACCEL_PRAGMA(GCC push_options) PROTOACCEL_PRAGMA(GCC target(isa))
#define PROTOACCEL_TARGET_END PROTOACCEL_PRAGMA(GCC pop_options)
#else
#error "protoaccel's x86 kernels need gcc or clang"
#endif

#endif  // PROTOACCEL_DISPATCH_TARGET_H_
