// @help chromatic aberration: red and blue drift apart, away from the centre
// @param int shift = 4 [0, 32] step 1 pixels between red and blue at the edges
kernel void chromatic(CLV_ARGS, int shift)
{
    int x = CLV_X, y = CLV_Y;
    // The drift grows from 0 at the centre to `shift` at the left/right edges.
    int s = shift * (2 * x - (width - 1)) / max(width - 1, 1);
    clv_pixel p = READ(x, y);
    WRITE((clv_pixel)(READ(x + s, y).x, p.y, READ(x - s, y).z, p.w));
}
