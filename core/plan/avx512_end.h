// SPDX-License-Identifier: GPL-3.0-or-later
// No include guard: closes what avx512_begin.h opened.
#pragma GCC diagnostic pop
#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
