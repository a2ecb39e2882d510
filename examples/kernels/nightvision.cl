// @help night vision: amplified green, grain that changes every frame, scan lines
// @param float gain = 1.3 [0.5, 4] step 0.1 light amplification
// @param int grain = 24 [0, 64] step 4 strength of the grain (of 255)
kernel void nightvision(CLV_ARGS, int frame, float gain, int grain)
{
    int x = CLV_X, y = CLV_Y;
    clv_pixel p = READ(x, y);
    // A hash of (x, y, frame) for the grain: the same on every device.
    uint h = (uint)x * 0x9E3779B1u ^ (uint)y * 0x85EBCA77u ^ (uint)frame * 0xC2B2AE3Du;
    h ^= h >> 15;
    h *= 0x2C1B3C6Du;
    h ^= h >> 12;
    // The grain is on the 8-bit scale: 257 times it at 16 bits.
    int n = ((int)(h & 255) * grain / 255 - grain / 2) * (CLV_MAX / 255);
    int v = clamp((int)((float)clv_gray(p) * gain) + n, 0, CLV_MAX);
    if (y % 2)
        v = v * 3 / 4; // scan lines
    WRITE((clv_pixel)(v / 5, v, v / 4, p.w));
}
