/* emboss.c - the emboss filter: convolution with -2 -1 0 -1 1 1 0 1 2. */
#include "filters.h"

CLV__FIXED_CONVOLUTION(emboss, "emboss: convolution with -2 -1 0 / -1 1 1 / 0 1 2", -2, -1, 0, -1,
                       1, 1, 0, 1, 2);
