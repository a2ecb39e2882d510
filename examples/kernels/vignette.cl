// @help darkens towards the corners, like an old lens
// @param int strength = 70 [0, 100] step 5 percent of darkening at the corners
kernel void vignette(CLV_ARGS, int strength)
{
    // Distance from the centre in half-pixels, squared, against the corner's.
    long dx = 2 * CLV_X - (width - 1), dy = 2 * CLV_Y - (height - 1);
    long r2 = max((long)(width - 1) * (width - 1) + (long)(height - 1) * (height - 1), 1L);
    long f = 10000 - strength * 100 * (dx * dx + dy * dy) / r2; // 1/10000ths
    clv_pixel p = READ(CLV_X, CLV_Y);
    long4 c = convert_long4(p);
    WRITE((clv_pixel)(clv_sat((c * f + 5000) / 10000).xyz, p.w));
}
