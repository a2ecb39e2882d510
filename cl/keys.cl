/* keys.cl - the alpha of colorkey and chromakey from a distance d
 * (src/filters/keys.h): the host's table t of CLV_MAXV + 1 levels, t[k]
 * the least d whose alpha is k or more, searched in 8 or 16 halvings. */

inline clv_ch key_level(__global const long *t, long d)
{
    int a = 0;
    for (int step = (CLV_MAXV + 1) / 2; step; step >>= 1)
        a += t[a + step] <= d ? step : 0;
    return (clv_ch)a;
}
