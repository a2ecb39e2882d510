// @help edges (Sobel on luma) glowing in a colour over the picture
// @param int strength = 300 [0, 800] step 20 percent of the edge added
// @param int hue = 0 [0, 2] step 1 0 cyan, 1 magenta, 2 amber
kernel void sobel_glow(CLV_ARGS, int strength, int hue)
{
    int x = CLV_X, y = CLV_Y;
    int a = clv_gray(READ(x - 1, y - 1)), b = clv_gray(READ(x, y - 1)),
        c = clv_gray(READ(x + 1, y - 1)), d = clv_gray(READ(x - 1, y)),
        f = clv_gray(READ(x + 1, y)), g = clv_gray(READ(x - 1, y + 1)),
        h = clv_gray(READ(x, y + 1)), i = clv_gray(READ(x + 1, y + 1));
    int gx = (c + 2 * f + i) - (a + 2 * d + g), gy = (g + 2 * h + i) - (a + 2 * b + c);
    // |gx| + |gy| <= 8 * CLV_MAX, times 800 fits an int at 16 bits too.
    int e = min((int)(abs(gx) + abs(gy)) * strength / 400, CLV_MAX);
    int3 tint = hue == 0 ? (int3)(0, 255, 255) : hue == 1 ? (int3)(255, 0, 255) : (int3)(255, 176, 0);
    clv_pixel p = READ(x, y);
    int4 o = convert_int4(p) + (int4)(tint * e / 255, 0);
    WRITE(clv_sat(o));
}
