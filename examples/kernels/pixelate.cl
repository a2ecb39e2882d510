// @help mosaic: each block shows the pixel at its centre
// @param int block = 12 [1, 64] step 1 block size in pixels
kernel void pixelate(CLV_ARGS, int block)
{
    int bx = CLV_X / block * block + block / 2, by = CLV_Y / block * block + block / 2;
    WRITE(READ(bx, by));
}
