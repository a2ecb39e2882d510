/* sharpen.c - the sharpen filter: convolution with 0 -1 0 -1 5 -1 0 -1 0. */
#include "filters.h"

CLV__FIXED_CONVOLUTION(sharpen, "sharpen: convolution with 0 -1 0 / -1 5 -1 / 0 -1 0", 0, -1, 0, -1,
                       5, -1, 0, -1, 0);
