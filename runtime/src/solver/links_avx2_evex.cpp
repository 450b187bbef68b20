// drape solver: the eight-lane kernels of links_avx2.cpp compiled once more, for AVX-512VL (the
// same instructions on 256-bit registers, with the 32 registers of EVEX encoding; see there).
#define DRAPE_WIDE_EVEX 1
#include "links_avx2.cpp"
