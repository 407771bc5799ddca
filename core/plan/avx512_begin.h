// SPDX-License-Identifier: GPL-3.0-or-later
// No include guard: included once where code compiled for AVX-512 begins, and closed by
// avx512_end.h. Everything between is compiled for that target and may be called only where the
// CPU has it.
#if defined(__clang__)
// clang ignores GCC's target pragma (the fuzz preset builds with clang).
#pragma clang attribute push(__attribute__((target("avx512f"))), apply_to = function)
#pragma GCC diagnostic push
#else
#pragma GCC push_options
#pragma GCC target("avx512f")
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi" // vectors passed only between functions of that target
// GCC 12 takes the undefined source operand of some intrinsics (_mm512_undefined_*) for an
// uninitialised variable (GCC bug 105593).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
