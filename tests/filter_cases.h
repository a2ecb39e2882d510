/* filter_cases.h - the device-versus-reference cases of every filter, in one
 * table keyed by the filter's name. A registered filter without an entry
 * here fails the test filter_cases (so a new filter is one .c, one .cl, one
 * registry line, and its cases here). */
#ifndef CLVID_FILTER_CASES_H
#define CLVID_FILTER_CASES_H

typedef struct filter_case {
    const char *chain;
    int small_only; /* too slow for the reference at 1921x1081; 2: slower
                     * still, 641x359 with noise alone (the sanitizer
                     * builds: the small sizes alone) */
    int frames;     /* > 1 for filters with state or per-frame variation */
} filter_case;

#define CASES(a) a, (int)(sizeof a / sizeof a[0])
#define CONV_ROW7(c) c c c c c c c

static const filter_case convolution_cases[] = {
    {"convolution", 0, 1},
    {"convolution=matrix='1 2 1 2 4 2 1 2 1'", 0, 1},
    /* Columns alike (GPUs sum each column once), divisors not powers of two. */
    {"convolution=matrix='1 1 1 1 1 1 1 1 1'", 0, 1},
    {"convolution=matrix='-2 -2 -2 5 5 5 1 1 1':div=7:bias=3", 0, 1},
    {"convolution=matrix='-1 -1 -1 -1 8 -1 -1 -1 -1':bias=128", 0, 1},
    {"convolution='1 2 3 4 5 6 7 8 9 10 -11 12 -13 14 15 16 -17 18 19 20 21 22 23 24 -25':7:-3", 0,
     1},
    {"convolution=matrix='-3 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 "
     "0 0 0 0 0 0 0 0 0 0 0 0 0 1':div=0",
     0, 1},
    {"convolution=matrix='1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 "
     "1 1 1 1 1 1 1 1 1 1 1 1 1'",
     0, 1},
    {"convolution=matrix='10000 -10000 10000 -10000 10000 -10000 10000 -10000 10000':div=999999:"
     "bias=-1024",
     0, 1},
    {"convolution=matrix='0 -1 0 -1 4 -1 0 -1 0':div=3:bias=-7", 0, 1},
    /* powers of two, negative sums and the largest */
    {"convolution=matrix='-1 -2 -1 0 0 0 1 2 1':div=4:bias=128", 0, 1},
    {"convolution=matrix='3 -7 0 5 -9 1 0 -2 -8':div=2:bias=-3", 0, 1},
    {"convolution=matrix='10000 -10000 10000 -10000 10000 -10000 10000 -10000 -10000':div=524288",
     0, 1},
    {"convolution=matrix='1 4 6 4 1 4 16 24 16 4 6 24 36 24 6 4 16 24 16 4 1 4 6 4 1'", 0, 1},
    /* the GPU shape's multiply-high division at its bounds (clv__conv_magic):
     * the largest sums (|S| up to 255 * 49 * 10000) with the sum as the
     * divisor, with a small divisor, and with the largest one */
    {"convolution=matrix='" CONV_ROW7(" 10000") CONV_ROW7(" 10000") CONV_ROW7(" 10000")
         CONV_ROW7(" 10000") CONV_ROW7(" 10000") CONV_ROW7(" 10000") CONV_ROW7(" 10000") "'",
     0, 1},
    {"convolution=matrix='" CONV_ROW7(" -10000") CONV_ROW7(" -10000") CONV_ROW7(" -10000")
         CONV_ROW7(" -10000") CONV_ROW7(" -10000") CONV_ROW7(" -10000")
             CONV_ROW7(" -9999") "':div=3:bias=1024",
     0, 1},
    {"convolution=matrix='" CONV_ROW7(" 10000 -10000") CONV_ROW7(" -10000 10000")
         CONV_ROW7(" 10000 -10000") " 10000 -10000 10000 -10000 10000 -10000 10000':div=1000000:"
                                    "bias=-1",
     0, 1},
    /* plus shapes (the CPU rows' five-tap loops): equal arms, unequal arms */
    {"convolution=matrix='0 1 0 1 -4 1 0 1 0':bias=128", 0, 1},
    {"convolution=matrix='0 -2 0 -1 6 3 0 1 0':div=1:bias=-5", 0, 1},
};

static const filter_case sharpen_cases[] = {
    {"sharpen", 0, 1},
};

static const filter_case emboss_cases[] = {
    {"emboss", 0, 1},
};

static const filter_case prewitt_cases[] = {
    {"prewitt", 0, 1},
    {"prewitt=scale=0.5:delta=10", 0, 1},
    {"prewitt=scale=2.333:delta=-20", 0, 1},
    {"prewitt=scale=64:delta=-255", 0, 1},
    {"prewitt=scale=0:delta=255", 1, 1},
    {"prewitt=0.001", 1, 1},
};

static const filter_case median_cases[] = {
    {"median", 0, 1},          {"median=radius=2", 0, 1}, {"median=3", 1, 1},
    {"median=radius=4", 1, 1}, {"median=radius=5", 1, 1}, {"median=radius=6", 1, 1},
    {"median=radius=7", 1, 1},
};

static const filter_case erode_cases[] = {
    {"erode", 0, 1},
    {"erode=radius=2:iterations=3", 1, 1},
    {"erode=radius=1:iterations=2", 0, 1},
};

static const filter_case dilate_cases[] = {
    {"dilate", 0, 1},
    {"dilate=3", 1, 1},
    {"dilate=radius=7:iterations=4", 2, 1},
};

static const filter_case threshold_cases[] = {
    {"threshold", 0, 1},
    {"threshold=t=0", 0, 1},
    {"threshold=255", 1, 1},
    {"threshold=77", 1, 1},
};

static const filter_case gray_cases[] = {
    {"gray", 0, 1},
};

static const filter_case equalize_cases[] = {
    {"equalize", 0, 1},
    {"equalize=mode=gray", 0, 1},
    {"gray,equalize=gray", 1, 1},
};

static const filter_case hflip_cases[] = {
    {"hflip", 0, 1},
    {"hflip,vflip", 0, 1},
    {"median,hflip,sharpen", 0, 1},
};

static const filter_case vflip_cases[] = {
    {"vflip", 0, 1},
    {"vflip,vflip", 0, 1},
};

/* Every input size of the rig (1x1 to 1921x1081) to fixed and relative
 * sizes: 1x1, 3x2, 17x9, odd factors up and down, each algorithm, the
 * parameters, and scale inside a chain (the links between sizes). */
static const filter_case scale_cases[] = {
    {"scale=1:1", 0, 1},
    {"scale=3:2", 0, 1},
    {"scale=17:9:flags=lanczos", 0, 1},
    {"scale=iw*3:ih*3", 1, 1},
    {"scale=-2:ih/3", 0, 1},
    {"scale=iw*5/3:ih*7/5:flags=bilinear", 1, 1},
    {"scale=iw*3/7:ih*5/9:flags=area", 0, 1},
    {"scale=iw*2+1:ih*2-1:flags=area", 1, 1},
    {"scale=iw/2+3:ih*3/2:flags=neighbor", 0, 1},
    {"scale=w=iw*2/5:h=ih*3:flags=lanczos:param0=2", 1, 1},
    {"scale=iw*3/5:ih/2:flags=bicubic:param0=0:param1=1", 0, 1},
    {"scale=iw*4/3:ih*2/3:flags=gauss", 1, 1},
    {"scale=iw*2/3:ih*5/4:flags=spline", 1, 1},
    {"scale=iw*5/7:ih*3/2:flags=sinc", 1, 1},
    {"scale=iw*3/2:ih*2/3:flags=experimental", 1, 1},
    {"scale=iw*3/2+1:ih*2/3:flags=fast_bilinear", 0, 1},
    {"scale=iw*3/2:ih:flags=bitexact+bicubic", 0, 1},
    {"scale=iw:ih", 0, 1},
    {"scale=0:0", 0, 1},
    {"scale=iw/4:ih/4,sharpen,scale=iw*4:ih*4", 1, 1},
    {"scale=w=1:h=ih*2,scale=iw*5:ih", 1, 1},
    /* Extreme bicubic B and C: lobes whose sums pass 32 bits at 16 bits a
     * channel (swscale's own would wrap), the intermediate's clamps bite. */
    {"scale=iw/2:ih*2:flags=bicubic:param0=-10:param1=10", 0, 1},
    {"scale=iw*2+1:ih/3:flags=bicubic:param0=10:param1=-10", 1, 1},
};

/* The geometry filters: every case fits every size the harness runs (1x1
 * up), so sizes are clamped with max() and ceil(). */
static const filter_case crop_cases[] = {
    {"crop", 0, 1},
    {"crop=1:1", 0, 1},
    {"crop=1:1:iw-1:ih-1", 0, 1},
    {"crop=w='max(iw-3,1)':h='max(ih-1,1)':x=1:y=0", 0, 1},
    {"crop=out_w='ceil(iw/3)':out_h='ceil(ih/2)':x=7:y=3", 0, 1},
    {"crop='ceil(iw/2)':'ceil(ih/2)':keep_aspect=1", 0, 1},
    /* x and y of n and t each frame, x of y, a NaN keeping the last x */
    {"crop='ceil(iw/2)':'ceil(ih/3)':'n*3':'t*50'", 0, 3},
    {"crop=w='ceil(iw/2)':h='ceil(ih/2)':x='y*2+1':y='n+1'", 1, 3},
    {"crop=w='ceil(iw/2)':x='if(eq(n,1),0/0,n*5)':y=-7", 1, 3},
    {"crop=out_w='min(iw,oh*2)':out_h='ceil(ih*2/3)':exact=1", 1, 1},
};

static const filter_case pad_cases[] = {
    {"pad", 0, 1},
    {"pad=iw+5:ih+2:3:1:red", 0, 1},
    {"pad=width='iw+1':height='ih+1':x=1:y=1:color=0x00ff0080", 0, 1},
    {"pad=w=0:h='ih*2':x=-1:y=-1:color=black@0.5", 0, 1},
    {"pad=w='iw+7':h=0:x=-3:color=white@0.25", 1, 1},
    {"pad=w='iw+2':h='ih+3':x='(ow-iw)/2':y='oh-ih':color=Salmon@0x7f", 1, 1},
    {"pad=aspect=16/9:x=-1:y=-1:color=blue", 0, 1},
    {"pad=aspect=0.3:eval=frame:color=#10203040", 1, 1},
    /* At 16 bits each channel c of the colour is c * 257: channels (alpha
     * among them) that tell it from c << 8 and from c, odd margins. */
    {"pad=w='iw+3':h='ih+5':x=1:y=3:color=0x017ffe81", 0, 1},
};

static const filter_case transpose_cases[] = {
    {"transpose", 0, 1},
    {"transpose=clock", 0, 1},
    {"transpose=cclock", 0, 1},
    {"transpose=clock_flip", 0, 1},
    {"transpose=1", 1, 1},
    {"transpose=dir=5", 1, 1},
    {"transpose=clock:passthrough=portrait", 1, 1},
    {"transpose=cclock:landscape", 1, 1},
    /* mixed with each other, the flips and size-keeping filters */
    {"crop='max(iw-3,1)':'max(ih-1,1)':1:0,transpose=clock,median,pad=iw+5:ih+2:3:1:red", 0, 1},
    {"hflip,crop=1:1:iw-1:0,pad=iw+2:ih+2:1:1:green@0.5,transpose=cclock", 0, 1},
    {"pad=iw+3:ih+1:2:1:0x11223344,transpose=cclock,hflip,crop=w='ceil(iw/2)':x=1,"
     "transpose=clock_flip,sharpen",
     0, 2},
};

static const filter_case noise_cases[] = {
    {"noise", 0, 3},
    {"noise=type=saltpepper:amount=1:seed=7", 1, 2},
    {"noise=type=gaussian:sigma=25:seed=3", 0, 3},
    {"noise=gaussian:0:100:4294967295", 1, 2},
    {"noise=type=gaussian:sigma=0.5", 1, 1},
};

static const filter_case quantize_cases[] = {
    /* The defaults over three frames up to 641x359, one frame at
     * 1921x1081 (the reference's ten iterations of 16 centres are slow). */
    {"quantize", 1, 3},
    {"quantize=colors=16", 0, 1},
    {"quantize=colors=2:iterations=3", 1, 2},
    {"quantize=colors=256:iterations=2", 1, 2},
    {"quantize=colors=64:iterations=2", 1, 2}, /* the most with the index in the key (GPUs) */
    {"quantize=colors=65:iterations=2", 1, 2},
    {"quantize=colors=1", 1, 1},
    {"quantize=iterations=0", 1, 2},
    {"quantize=colors=5:iterations=30", 1, 1},
    /* One cluster of every pixel of 1921x1081: at 16 bits its sums pass
     * 2^32 unless the host keeps each group's share small. */
    {"quantize=colors=1:iterations=1", 0, 1},
};

/* ffmpeg's rotate: the copies it makes for the right angles (PI/2 and
 * 3*PI/2 only where the output is the input turned), its fixed-point turn
 * otherwise, sizes from expressions, the time (frames > 1), fill alpha and
 * nearest pixels. */
static const filter_case rotate_cases[] = {
    {"rotate", 0, 1},
    {"rotate=PI/6", 0, 1},
    {"rotate=-1.3", 0, 1},
    {"rotate=PI/2", 0, 1},
    {"rotate=PI/2:ow=ih:oh=iw", 0, 1},
    {"rotate=PI", 0, 1},
    {"rotate=3*PI/2:ow=ih:oh=iw", 1, 1},
    {"rotate=2*PI*t", 0, 3},
    {"rotate=a=0.4:ow='hypot(iw,ih)':oh=ow", 0, 1},
    {"rotate=a=PI/6:ow='rotw(PI/6)':oh='roth(PI/6)'", 0, 1},
    {"rotate=-1.3:c=red@0.5", 1, 1},
    {"rotate=1:bilinear=0", 0, 1},
    {"rotate=n*0.7-1:fillcolor=0x20408060:bilinear=0:out_w=iw*2/3", 1, 3},
    {"median,rotate=0.5:out_h=ih+5,sharpen", 1, 1},
    /* 16 bits: the fill's channels c * 257 (alpha too); bilinear sums past
     * 2^31 on bright and saturated pictures; the geometry filters together
     * (each runs at both depths), odd sizes throughout. */
    {"rotate=0.9:c=0x017ffe81", 0, 1},
    {"rotate=a=-2.2:ow='rotw(-2.2)':oh='roth(-2.2)':c=white@0.5", 1, 1},
    {"crop='max(iw-3,1)':'max(ih-1,1)':1:0,rotate=PI/2:ow=ih:oh=iw,pad=iw+5:ih+2:3:1:0x017ffe81,"
     "transpose=clock,rotate=0.4:c=green@0.25",
     0, 2},
};

/* tonemap: the test frames are untagged (they pass through), so the cases
 * say what they are with transferin (and primariesin); peak=0 measures the
 * peak, a state the frames after the first go through. */
static const filter_case tonemap_cases[] = {
    {"tonemap", 0, 1},
    {"tonemap=hable:tin=smpte2084:peak=10", 0, 1},
    {"tonemap=reinhard:param=0.6:transferin=smpte2084:peak=40:desat=0", 0, 1},
    {"tonemap=mobius:tin=smpte2084:pin=bt709:peak=12.5", 0, 1},
    {"tonemap=linear:param=2:tin=smpte2084:peak=100:desat=0.25", 0, 1},
    {"tonemap=gamma:tin=smpte2084:peak=5:desat=0.5", 0, 1},
    {"tonemap=clip:param=1.5:tin=smpte2084:peak=10", 0, 1},
    {"tonemap=bt2390:tin=smpte2084:peak=10", 0, 1},
    {"tonemap=none:tin=smpte2084:desat=0:peak=1", 0, 1},
    {"tonemap=bt2390:param=1:tin=arib-std-b67:peak=10", 0, 1},
    {"tonemap=hable:tin=smpte2084", 0, 4},
    {"tonemap=mobius:tin=arib-std-b67:desat=1", 0, 3},
    {"tonemap=reinhard:tin=smpte2084,hflip", 1, 3},
};

/* eq: ffmpeg's three paths per plane (copied, process_c's integers,
 * create_lut's table), negative and large contrast, the gammas of each
 * plane with their weight, expressions evaluated once or every frame. */
static const filter_case eq_cases[] = {
    {"eq", 0, 1},
    {"eq=contrast=1.3:brightness=0.1", 0, 1},
    {"eq=1.5:-0.2:2", 0, 1},
    {"eq=contrast=-1", 0, 1},
    {"eq=contrast=9:brightness=-0.5", 0, 1},
    {"eq=saturation=0", 0, 1},
    {"eq=saturation=3:contrast=0.6", 1, 1},
    {"eq=gamma=1.8", 0, 1},
    {"eq=gamma=0.5:gamma_weight=0.4:contrast=1.1", 0, 1},
    {"eq=gamma_r=2:gamma_b=0.4:gamma_g=1.2", 0, 1},
    {"eq=brightness='0.1*sin(2*PI*t)':contrast='1+n/10':eval=frame", 0, 3},
    {"eq=brightness='0.1*sin(2*PI*t)':contrast='1+n/10'", 1, 3},
    {"eq=contrast='0/0':gamma=3", 1, 1},
};

/* hue: degrees and radians, saturation (negative: the opposite hue),
 * brightness, expressions of n and t (evaluated every frame). */
static const filter_case hue_cases[] = {
    {"hue", 0, 1},
    {"hue=h=90", 0, 1},
    {"hue=90:2", 0, 1},
    {"hue=H=PI/3:s=0.5:b=1", 0, 1},
    {"hue=s=0", 0, 1},
    {"hue=s=-1:b=-2", 0, 1},
    {"hue=h=200:s=10:b=10", 1, 1},
    {"hue=H='2*PI*t':s='sin(n)+1'", 0, 3},
    {"hue=h=45:b='0/0'", 1, 1},
};

/* colorbalance: each range of each channel, both signs, with and without
 * preserving the lightness (its gray and black corners among them). */
static const filter_case colorbalance_cases[] = {
    {"colorbalance", 0, 1},
    {"colorbalance=rs=0.3:gm=-0.2:bh=0.5", 0, 1},
    {"colorbalance=-0.5:0.25:0.75:0.1:-0.3:0.6:-1:1:-0.4", 0, 1},
    {"colorbalance=rs=1:gs=1:bs=1:rh=-1:gh=-1:bh=-1", 0, 1},
    {"colorbalance=rm=0.4:gm=-0.4:pl=1", 0, 1},
    {"colorbalance=rs=0.2:gs=0.3:bs=0.2:rh=-0.3:gh=-0.3:bh=-0.2:pl=1", 0, 1},
    {"colorbalance=0.1:0.2:0.3:0.4:0.5:0.6:0.7:0.8:0.9:1", 1, 1},
};

/* vignette: ffmpeg's map and its dither (frames in a row continue it),
 * backward with its factors past 32767 (black where ffmpeg overflows), a
 * centre off the picture, an aspect, expressions evaluated every frame. */
static const filter_case vignette_cases[] = {
    {"vignette", 0, 2},
    {"vignette=dither=0", 0, 1},
    {"vignette=PI/4:w/3:h/4:dither=0", 0, 1},
    {"vignette=a=PI/2:mode=backward", 0, 1},
    {"vignette=angle=PI/3:mode=backward:dither=0", 1, 1},
    {"vignette=x0=-w/2:y0=h*2:angle=1", 1, 2},
    {"vignette=aspect=16/9:angle=1.2", 0, 1},
    {"vignette=angle='PI/5+t':x0='w/2+n*3'", 0, 3},
    {"vignette=angle=0.5:eval=frame:dither=0", 1, 2},
    /* the colour filters together, at both depths */
    {"eq=contrast=1.2:saturation=1.4,hue=h=30,colorbalance=rs=0.2:bh=-0.2,vignette", 0, 2},
};

/* sobel and roberts: the exact magnitude with scale 1 and whole deltas
 * (their unit kernels), fractional scales and deltas, one plane or two of
 * ffmpeg's mask, a scale that saturates, scale 0. */
static const filter_case sobel_cases[] = {
    {"sobel", 0, 1},
    {"sobel=planes=1:scale=0.5:delta=10", 0, 1},
    {"sobel=6:2.333:-20.5", 0, 1},
    {"sobel=scale=1:delta=-255", 0, 1},
    {"sobel=scale=65535:delta=-255", 1, 1},
    {"sobel=planes=12:scale=0:delta=100.25", 1, 1},
    {"sobel=planes=0", 1, 1},
};

static const filter_case roberts_cases[] = {
    {"roberts", 0, 1},
    {"roberts=planes=2:scale=3:delta=7", 0, 1},
    {"roberts=scale=0.125:delta=-0.5", 0, 1},
    {"roberts=planes=5:scale=1:delta=128", 1, 1},
    {"roberts=scale=900", 1, 1},
};

/* scharr: its unit kernel (isqrt(m >> 16)), fractional scales, the high
 * word of m p^2 below and past its saturation (at 8 bits scale 300 keeps
 * every m p^2 under 2^70, 1000 has both sides in one frame, 65535 is past
 * it; at 16 bits most of each is past), scale 0. */
static const filter_case scharr_cases[] = {
    {"scharr", 0, 1},
    {"scharr=planes=1:scale=0.5:delta=10", 0, 1},
    {"scharr=6:2.333:-20.5", 0, 1},
    {"scharr=scale=300:delta=-255", 1, 1},
    {"scharr=scale=1000", 1, 1},
    {"scharr=scale=65535:delta=-255", 1, 1},
    {"scharr=planes=12:scale=0:delta=100.25", 1, 1},
    /* the review's: no plane, alpha's bit alone, the extremes of delta */
    {"scharr=planes=0", 1, 1},
    {"scharr=planes=8:scale=3", 1, 1},
    {"scharr=scale=65535:delta=255", 1, 1},
    {"scharr=scale=0.001:delta=-255", 1, 1},
    {"scharr=scale=181.019:delta=-254.999", 1, 1},
};

/* kirsch: unit, fractional and large scales, negative deltas. */
static const filter_case kirsch_cases[] = {
    {"kirsch", 0, 1},
    {"kirsch=planes=2:scale=0.3:delta=-20", 0, 1},
    {"kirsch=scale=3.7:delta=7.5", 0, 1},
    {"kirsch=planes=5:scale=1:delta=128", 1, 1},
    {"kirsch=scale=65535", 1, 1},
    {"kirsch=scale=0.001:delta=-0.5", 1, 1},
    {"kirsch=planes=0", 1, 1},
    {"kirsch=scale=65535:delta=-255", 1, 1},
    {"kirsch=scale=0:delta=-0.001", 1, 1},
    {"kirsch=scale=133.6:delta=-255", 1, 1},
};

/* edgedetect: each mode, plane sets by name and by ffmpeg's number, the
 * gray passed on (wires without its plane), thresholds at their ends and
 * low above high. */
static const filter_case edgedetect_cases[] = {
    {"edgedetect", 0, 1},
    {"edgedetect=mode=canny", 0, 1},
    {"edgedetect=mode=colormix:high=0.3:low=0.05", 0, 1},
    {"edgedetect=mode=canny:planes=r+b:high=0.1:low=0.02", 1, 1},
    {"edgedetect=mode=colormix:planes=5", 1, 1},
    {"edgedetect=planes=u", 1, 1},
    {"edgedetect=high=0:low=0", 1, 1},
    {"edgedetect=mode=canny:high=1:low=1", 1, 1},
    {"edgedetect=mode=canny:high=0.05:low=0.5", 1, 1},
    {"edgedetect=0.5:0.001:canny:g", 1, 1},
};

/* Files the cases read: tests/data (scripts/compare-grade --write-data). */
#define TEST_DATA(name) "'" CLVID_SOURCE_DIR "/tests/data/" name "'"

/* curves: ffmpeg's presets, points of each kind (one point: a constant; a
 * steep spline that overshoots), master after the channels, all, the
 * .acv file, pchip. */
static const filter_case curves_cases[] = {
    {"curves=preset=vintage", 0, 1},
    {"curves=preset=cross_process:interp=pchip", 0, 1},
    {"curves=master='0/0 0.3/0.1 0.6/0.8 1/1':r='0/0.1 1/0.9'", 0, 1},
    {"curves=all='0/1 0.5/0 1/1':interp=pchip", 0, 1},
    {"curves=preset=color_negative:g='0.5/0.5'", 1, 1},
    {"curves=psfile=" TEST_DATA("film.acv"), 0, 1},
    {"curves=psfile=" TEST_DATA("film.acv") ":all='0/0 1/0.8':interp=pchip", 1, 1},
    {"curves=preset=increase_contrast:m='0.1/0 0.9/1'", 1, 1},
    {"curves=b='0.2/0.3 0.25/0.9 0.3/0.1'", 1, 1},
    {"curves=b='0.2/0.3 0.25/0.9 0.3/0.1 0.9/0.2':interp=pchip", 1, 1},
    {"curves", 1, 1},
};

/* lut3d: each interpolation, each kind of file (3D with a domain, 1D, a
 * Resolve shaper and cube), entries far outside 0..1. */
static const filter_case lut3d_cases[] = {
    {"lut3d=" TEST_DATA("film9.cube"), 0, 1},
    {"lut3d=" TEST_DATA("film9.cube") ":interp=trilinear", 0, 1},
    {"lut3d=" TEST_DATA("film9.cube") ":interp=nearest", 0, 1},
    {"lut3d=" TEST_DATA("film9.cube") ":interp=pyramid", 0, 1},
    {"lut3d=" TEST_DATA("film9.cube") ":first:prism", 0, 1},
    {"lut3d=file=" TEST_DATA("shaper.cube"), 0, 1},
    {"lut3d=file=" TEST_DATA("resolve.cube") ":interp=trilinear", 0, 1},
    {"lut3d=file=" TEST_DATA("domain.cube"), 1, 1},
    {"lut3d=file=" TEST_DATA("wild.cube") ":interp=pyramid", 1, 1},
    {"lut3d=file=" TEST_DATA("wild.cube") ":interp=prism", 1, 1},
    {"lut3d=file=" TEST_DATA("wild.cube"), 1, 1},
    {"lut3d=file=" TEST_DATA("wild.cube") ":interp=trilinear", 1, 1},
};

/* deband: ffmpeg's offsets (its default direction, a fixed one, a fixed
 * distance), blur or each neighbour, coupling, thresholds of 0 and the
 * largest. */
static const filter_case deband_cases[] = {
    {"deband", 0, 1},
    {"deband=1thr=0.1:2thr=0.05:3thr=0.2:range=24:blur=0", 0, 1},
    {"deband=coupling=1:range=-5:direction=-1.2", 0, 1},
    {"deband=1thr=0.00003:3thr=0.5:r=3:d=PI/2:b=0:c=1", 0, 1},
    {"deband=range=-16384", 1, 1},
    {"deband=0.3:0.3:0.3:0.3:40:-2*PI", 1, 1},
};

/* The blur family (blur.c): gblur's weights for small and large sigmas,
 * sigmaV apart, planes; the box's running sums for radii past the frame,
 * powers, alpha apart; unsharp's sharpen and blur, windows up to 13x13,
 * the chroma options and alpha's (an even alpha size, as ffmpeg takes it).
 * At 16 bits every sum of the 8-bit path widens. */
static const filter_case gblur_cases[] = {
    {"gblur", 0, 1},
    {"gblur=sigma=2", 0, 1},
    {"gblur=sigma=5:steps=3", 0, 1},
    {"gblur=0.3:1:15:7", 1, 1},
    {"gblur=sigma=0", 0, 1},
    {"gblur=sigma=1.5:sigmaV=0", 1, 1},
    {"gblur=sigma=0:sigmaV=3.25", 1, 1},
    {"gblur=sigma=3:planes=1", 1, 1},
    {"gblur=sigma=2:planes=0x8", 1, 1},
    {"gblur=sigma=40", 1, 1},
    {"gblur=sigma=12:sigmaV=4", 1, 1}, /* GPUs: sep_tile's narrower tiles */
    /* enable= (ffmpeg's timeline): off on frames 0 and 2, the frame passed on;
     * in a chain, off from t = 0.08 (frame 2 at 25/s) */
    {"gblur=sigma=2:enable='eq(mod(n,2),1)'", 1, 3},
    {"median,gblur=sigma=1:enable='lt(t,0.05)',sharpen", 1, 3},
    {"median,gblur=sigma=1,sharpen", 1, 1},
};

static const filter_case avgblur_cases[] = {
    {"avgblur", 0, 1},
    {"avgblur=sizeX=5", 0, 1},
    {"avgblur=3:15:7", 1, 1},
    {"avgblur=sizeX=2:sizeY=9", 1, 1},
    {"avgblur=sizeX=40:sizeY=1", 1, 1}, /* box_small, a reach past 32 across */
    {"avgblur=sizeX=10", 1, 1},         /* box_small, sums past 16 bits down */
    {"avgblur=sizeX=39:sizeY=6", 1, 1}, /* box_small at its largest (n = 1027) */
    {"avgblur=sizeX=60:sizeY=3", 1, 1}, /* box_small, a reach of 60 across */
    {"avgblur=sizeX=59:sizeY=4", 1, 1}, /* box_strip at its longest reach (59 in 48 KiB) */
    /* GPUs: box_cols and box_across past box_strip's reach, the columns'
     * sums at 16 bits' end (2 ry + 1 = 257), a mask; then box_cols32 (the
     * columns' sums past 16 bits). */
    {"avgblur=sizeX=61:sizeY=128:planes=5", 2, 1},
    {"avgblur=sizeX=5:sizeY=129", 2, 1},
    /* box_across_row (a reach past 384) at 1921x1081, box_across's tiles
     * 512 wide at 641x359. */
    {"avgblur=sizeX=600:sizeY=3", 0, 1},
    /* box_across32 in two tiles at 641x359 (8 bits: 16-bit halves, 512
     * wide); the second near the 16-bit box sums' end (n = 60,701). */
    {"avgblur=sizeX=300:sizeY=150", 2, 1},
    {"avgblur=sizeX=300:sizeY=50", 2, 1},
    /* Reaches past 100: every content at the small sizes (where they pass
     * the frame), noise alone at 641x359 (with every content there, these
     * two and boxblur's two long radii took 84% of filter_boxblur). */
    {"avgblur=sizeX=200", 2, 1},
    {"avgblur=sizeX=1024:sizeY=1024", 2, 1},
    {"avgblur=sizeX=4:planes=8", 1, 1},
    {"avgblur=sizeX=4:planes=6", 1, 1},
};

static const filter_case boxblur_cases[] = {
    {"boxblur", 0, 1},
    {"boxblur=2:1", 0, 1},
    {"boxblur=luma_radius=min(w\\,h)/10:luma_power=1", 1, 1},
    {"boxblur=lr=5:lp=3", 1, 1},
    {"boxblur=20:1", 1, 1},
    {"boxblur=0", 1, 1},
    {"boxblur=3:0", 1, 1},
    {"boxblur=4:1:cr=2:cp=1:ar=1:ap=2", 1, 1},
    {"boxblur=luma_radius=2:alpha_radius=0", 1, 1},
    /* past int: as 1e9, half the smaller side (was refused as negative) */
    {"boxblur=luma_radius=1e300:chroma_radius=1e300", 1, 1},
    /* Radii of 100 and the width: as avgblur's long reaches. */
    {"boxblur=100:1", 2, 1},
    {"boxblur=w:2", 2, 1},
    /* GPUs: box_cols32 in bands of 256 and box_across_row at 1921x1081,
     * box_across32's tiles 768 wide at 641x359. */
    {"boxblur=500:1:ar=0", 0, 1},
};

static const filter_case unsharp_cases[] = {
    {"unsharp", 0, 1},
    {"unsharp=3:3:1.5", 0, 1},
    {"unsharp=7:5:-1.2", 0, 1},
    {"unsharp=lx=13:ly=13:la=5", 1, 1},
    {"unsharp=la=-2", 1, 1},
    {"unsharp=23:3:0.7", 1, 1},
    {"unsharp=5:5:0", 1, 1},
    {"unsharp=5:5:1:3:3:0.5", 1, 1},
    {"unsharp=lx=9:ly=3:la=2.5:cx=21:cy=3:ca=-1", 1, 1},
    {"unsharp=5:5:1:3:3:0.5:3:3:-1", 1, 1},
    {"unsharp=la=1:aa=1", 1, 1},
    {"unsharp=la=0:ax=9:ay=4:aa=2.5", 1, 1},
};

/* hqdn3d: ffmpeg's defaults, the 4:3:10:10, weak and strong
 * strengths (past 252, where ffmpeg's tables stop changing), fresh noise
 * every frame against the state. */
static const filter_case hqdn3d_cases[] = {
    {"hqdn3d", 0, 3},
    {"hqdn3d=4:3:10:10", 0, 3},
    {"hqdn3d=luma_spatial=1.5:luma_tmp=0.5", 0, 2},
    {"hqdn3d=20:0:40", 1, 3},
    {"hqdn3d=300:1:1000", 1, 2},
    {"hqdn3d=0.001:0:0.001", 1, 2},
    /* off on frame 0: it runs (its previous frame kept), the frame passes on */
    {"hqdn3d=enable='gte(n,1)'", 1, 3},
};

/* yadif and bwdif: a sequence of fresh frames (every run a new input; a
 * send_field run's second field reads none), each mode, both parities
 * (ffmpeg's numbers too), the first frame's dropped output included. */
static const filter_case yadif_cases[] = {
    {"yadif", 0, 4},
    {"yadif=send_field:bff", 0, 6},
    {"yadif=mode=send_frame_nospatial:parity=tff", 0, 4},
    {"yadif=3:1:1", 1, 5},
    {"yadif=1:-1", 1, 5},
};
static const filter_case bwdif_cases[] = {
    {"bwdif", 0, 6},
    {"bwdif=send_frame:bff", 0, 4},
    {"bwdif=mode=send_field:parity=tff:deint=interlaced", 0, 5},
    {"bwdif=0:1", 1, 4},
    {"hflip,bwdif=1:0,vflip", 1, 6},
};

/* bilateral: ffmpeg's defaults (the pixel alone), discs of radius 2 to 15
 * (past BIL_FLUSH taps at 8 bits), the channels' masks, sigmas of 0. */
static const filter_case bilateral_cases[] = {
    {"bilateral", 0, 1},
    {"bilateral=sigmaS=2:sigmaR=0.1", 0, 1},
    {"bilateral=1.3:0.05:2", 0, 1},
    {"bilateral=sigmaS=3:sigmaR=0.3:planes=5", 0, 1},
    {"bilateral=sigmaS=2:sigmaR=0", 0, 1},
    {"bilateral=sigmaS=0:sigmaR=0.5", 0, 1},
    {"bilateral=sigmaS=2:sigmaR=1:planes=8", 1, 1},
    {"bilateral=sigmaS=5:sigmaR=1", 2, 1},
    {"bilateral=sigmaS=10:sigmaR=0.5:planes=3", 2, 1},
};

/* nlmeans: small patches and windows at every size, ffmpeg's defaults
 * (7x7 patches, 15x15 window), even sizes (made odd), a patch wider than
 * the small pictures, strengths with the table's shift at 0 and above. */
static const filter_case nlmeans_cases[] = {
    {"nlmeans=s=2:p=3:r=5", 0, 1},  {"nlmeans=s=4:p=5:r=1", 0, 1},
    {"nlmeans=s=30:p=4:r=6", 1, 1}, {"nlmeans", 2, 1},
    {"nlmeans=s=15", 2, 1},         {"nlmeans=1.5:1:0:9", 2, 1},
    {"nlmeans=s=8:p=21:r=3", 1, 1},
};

/* colorkey: ffmpeg's default (black, 0.01), keyed or not (blend 0) and
 * blended, a wide and a narrow key, the key a colour of the pictures. */
static const filter_case colorkey_cases[] = {
    {"colorkey", 0, 1},
    {"colorkey=green:0.3:0.1", 0, 1},
    {"colorkey=color=0x8040c0:similarity=0.4", 0, 1},
    {"colorkey=white:0.2:1", 0, 1},
    {"colorkey=0x102030:0.01:0.001", 1, 1},
};

/* chromakey: ffmpeg's default, keyed or not, blended, the key given as
 * Y, U, V (yuv=1), a key near the pictures' colours. */
static const filter_case chromakey_cases[] = {
    {"chromakey", 1, 1},
    {"chromakey=green:0.1:0.2", 1, 1},
    {"chromakey=color=0x7050a0:similarity=0.05", 1, 1},
    {"chromakey=0x80a040:0.02:0.5:1", 1, 1},
};

/* despill: ffmpeg's default, blue, expand, every weight and the alpha,
 * the largest weights. */
static const filter_case despill_cases[] = {
    {"despill", 0, 1},
    {"despill=blue:0.2:0.3:alpha=1", 0, 1},
    {"despill=type=green:mix=0.7:expand=0.5:red=0.5:green=-2:blue=1.5:brightness=0.3:alpha=1", 0,
     1},
    {"despill=green:0:1:-100:100:-100:-10:1", 1, 1},
};

/* lumakey: ffmpeg's default (black), a band with and without softness,
 * a softness wider than the range (a ramp to both ends). */
static const filter_case lumakey_cases[] = {
    {"lumakey", 0, 1},
    {"lumakey=threshold=0.5:tolerance=0.1", 0, 1},
    {"lumakey=0.3:0.05:0.2", 0, 1},
    {"lumakey=1:0:1", 1, 1},
};

static const filter_case negate_cases[] = {
    {"negate", 0, 1},
    {"negate=components=r+a", 0, 1},
    {"negate=components=g:negate_alpha=1", 0, 1},
};
/* Gains at the ends of their range and where v * gain / 1000 falls on a
 * half (0.5, 1.5: the half-to-even rounding); each preserving mode at two
 * amounts; alpha in and out. */
static const filter_case colorchannelmixer_cases[] = {
    {"colorchannelmixer", 0, 1},
    {"colorchannelmixer=.393:.769:.189:0:.349:.686:.168:0:.272:.534:.131", 0, 1},
    {"colorchannelmixer=rr=-2:rg=2:rb=0.5:ra=1.5:gg=-0.5:ga=-2:bb=2:ba=0.001:ar=0.5:ag=0.5:aa=-1",
     1, 1},
    {"colorchannelmixer=rr=1.3:gb=0.7:bg=-0.4:pc=lum:pa=1", 0, 1},
    {"colorchannelmixer=rr=0.2:gg=1.8:bb=0.9:rb=0.6:pc=max:pa=0.5", 1, 1},
    {"colorchannelmixer=rr=-1:gg=0.3:bb=1.9:pc=avg:pa=0.75", 1, 1},
    {"colorchannelmixer=rr=0:gg=0:bb=0:pc=sum:pa=1", 1, 1},
    {"colorchannelmixer=rr=1.5:gr=0.5:bb=0.25:pc=nrm:pa=0.9", 1, 1},
    {"colorchannelmixer=rr=-0.5:gg=1.2:bg=0.4:pc=pwr:pa=0.35", 1, 1},
    {"colorchannelmixer=rr=2:rg=2:rb=2:gg=-2:pc=pwr:pa=1", 1, 1},
};
/* Points inside the range, reversed (a negative coefficient), equal (a
 * flat range: ffmpeg's infinite or NaN coefficient, 0), the frame's own
 * (auto, over several frames: the device's two sets of points in turn),
 * each preserving mode, auto with one, outputs far past the range. */
static const filter_case colorlevels_cases[] = {
    {"colorlevels", 0, 1},
    {"colorlevels=rimin=0.1:gimax=0.8:bomin=0.2:bomax=0.7", 0, 1},
    {"colorlevels=rimin=-1:rimax=-1:gimin=-1:bimax=-1:aimin=-1", 0, 3},
    {"colorlevels=rimin=0.3:rimax=0.2:aimin=0.1:aomax=0.4", 0, 1},
    {"colorlevels=rimin=0.5:rimax=0.5:gimin=0.2:gimax=0.2:gomax=0:bimin=0.002:bimax=0.002", 1, 1},
    {"colorlevels=rimin=0.05:gimin=0.1:rimax=0.9:preserve=lum", 0, 1},
    {"colorlevels=rimin=0.2:romax=0.7:preserve=max", 1, 1},
    {"colorlevels=rimin=0.2:gomin=0.3:preserve=avg", 1, 1},
    {"colorlevels=bimin=0.3:bomin=1:preserve=sum", 1, 1},
    {"colorlevels=rimin=0.1:gimax=0.7:preserve=nrm", 1, 1},
    {"colorlevels=rimin=-1:gimax=-1:bimin=0.4:bomax=0.1:preserve=pwr", 1, 2},
    /* outputs far past the range (a flat one's INT_MIN, a narrow one's
     * stretch) in the lightness measures: within 8 max (colorlevels.c) */
    {"colorlevels=rimin=0.5:rimax=0.5:preserve=nrm", 1, 1},
    {"colorlevels=gimin=0.5:gimax=0.501:preserve=pwr", 1, 1},
    {"colorlevels=bimin=0.3:bimax=0.302:preserve=lum", 1, 1},
    /* a flat red scaled past int's range (INT_MIN, 0, as ffmpeg) */
    {"colorlevels=rimin=0.5:rimax=0.5:gimax=0.004:preserve=sum", 1, 1},
    /* the frame's own points of frames narrowed first (noise spans 0..max) */
    {"lutrgb=r=val/2+40:g=val*0.6+20:b=val/3,colorlevels=rimin=-1:rimax=-1:gimin=-1:gimax=-1:"
     "bimin=-1",
     0, 2},
};

/* Over several frames (index and time, 25 frames/s): by frames, by time,
 * both, each way, black (alpha too), a colour, alpha alone. */
static const filter_case fade_cases[] = {
    {"fade=in:0:4", 0, 6},
    {"fade=out:1:3:color=0x336699@0.5", 1, 6},
    {"fade=t=out:st=0.1:d=0.15", 1, 9},
    {"fade=in:s=2:d=0.1:c=white", 1, 6},
    {"fade=in:st=0.09:n=2:alpha=1", 1, 6},
};

/* lut and lutrgb: negval, constants, gammaval and gammaval709, the size,
 * a condition, values past the range both ways and beyond int (0, as
 * x86's conversion gives INT_MIN), the defaults (as it is). */
static const filter_case lut_cases[] = {
    {"lut", 0, 1},
    {"lut=c0=maxval-val:c3=val/2", 0, 1},
    {"lut=c1=negval:c2=val*w/(w+h)+0.7", 0, 1},
};

static const filter_case lutrgb_cases[] = {
    {"lutrgb=r=negval:g=val*2:b=val-40:a=128", 0, 1},
    {"lutrgb=r=gammaval(0.5):g=gammaval709(2.2):b=maxval-val/3", 0, 1},
    {"lutrgb=g=if(gt(val\\,maxval/2)\\,maxval\\,0):r=val*1e8:b=1/0", 0, 1},
    {"lutrgb=y=st(0\\,ld(0)+1):u=negval:v=ld(1)+st(1\\,val)", 0, 1},
};

/* drawbox: the defaults (the frame's outline), a blend, a box over the
 * edges filled, invert, replace, thickness 0 (nothing drawn); drawgrid:
 * cells from the size, offsets below zero, replace, invert, the defaults
 * (one cell the frame's size). */
static const filter_case drawbox_cases[] = {
    {"drawbox", 0, 1},
    {"drawbox=x=iw/4:y=ih/3:w=iw/2:h=ih/3:color=red@0.5:t=2", 0, 1},
    {"drawbox=x=-2:y=-1:w=iw/3+1:h=ih/2:c=0x336699@0.3:t=fill", 0, 1},
    {"drawbox=x=iw/2:y=ih/2:w=iw:h=ih:t=5:c=invert", 0, 1},
    {"drawbox=1:1:iw-2:ih-2:yellow@0.7:1:1", 0, 1},
    {"drawbox=x=w:y=h:w=5:h=3:t=0", 0, 1},
};

static const filter_case drawgrid_cases[] = {
    {"drawgrid=w=iw/7:h=ih/5:t=2:c=white@0.4", 0, 1},
    {"drawgrid=x=-3:y=5:w=13:h=11:t=3:c=blue@0.8:replace=1", 0, 1},
    {"drawgrid=w=3:h=2:c=invert", 0, 1},
    {"drawgrid", 0, 1},
};

/* The filters that change no pixel (they run nothing on the device): alone
 * (one copy), between filters that run (the frame handed on), first, last,
 * and around a size change and a deinterlacer's two fields. */
static const filter_case null_cases[] = {
    {"null", 0, 1},
    {"null,null", 0, 1},
    {"sharpen,null,hflip", 0, 1},
    {"null,scale=iw/2:ih*2/3,null,median,null", 1, 1},
    {"null,yadif=mode=send_field,null,vflip,null", 1, 4},
};
static const filter_case copy_cases[] = {
    {"copy", 0, 1},
    {"copy,emboss,copy", 0, 1},
    {"copy,hqdn3d=4:3:6:6,copy,sharpen", 1, 3},
};
static const filter_case format_cases[] = {
    {"format=yuv420p", 0, 1},
    {"sharpen,format=yuv420p|nv12,null", 0, 1},
    {"hflip,gblur=sigma=2,format=rgb24,setsar=1,format=gray", 1, 1},
};
static const filter_case fps_cases[] = {
    {"fps=24", 0, 1},
    {"hflip,fps=ntsc:round=up,scale=iw/2:-1", 0, 1},
    {"gblur=sigma=2,fps=source_fps/2:start_time=0.5:eof_action=pass,crop=ceil(iw/2):ceil(ih/2)", 1,
     1},
};
static const filter_case framestep_cases[] = {
    {"framestep=2", 0, 1},
    {"median,framestep=7,hflip", 1, 1},
};
static const filter_case setsar_cases[] = {
    {"setsar=1", 0, 1},
    {"hflip,setsar=sar*2,vflip", 0, 1},
    {"setsar=16/9,scale=iw/2:-1,setsar=0,median", 1, 1},
};
static const filter_case setdar_cases[] = {
    {"setdar=16/9", 0, 1},
    {"transpose,setdar=4/3:max=1000,sharpen,setdar=0", 0, 1},
};

typedef struct filter_cases {
    const char *filter; /* the registry's name */
    const filter_case *cases;
    int count;
} filter_cases;

static const filter_cases filter_table[] = {
    {"convolution", CASES(convolution_cases)},
    {"sharpen", CASES(sharpen_cases)},
    {"emboss", CASES(emboss_cases)},
    {"prewitt", CASES(prewitt_cases)},
    {"median", CASES(median_cases)},
    {"erode", CASES(erode_cases)},
    {"dilate", CASES(dilate_cases)},
    {"threshold", CASES(threshold_cases)},
    {"gray", CASES(gray_cases)},
    {"equalize", CASES(equalize_cases)},
    {"noise", CASES(noise_cases)},
    {"quantize", CASES(quantize_cases)},
    {"hflip", CASES(hflip_cases)},
    {"vflip", CASES(vflip_cases)},
    {"scale", CASES(scale_cases)},
    {"rotate", CASES(rotate_cases)},
    {"tonemap", CASES(tonemap_cases)},
    {"crop", CASES(crop_cases)},
    {"pad", CASES(pad_cases)},
    {"transpose", CASES(transpose_cases)},
    {"eq", CASES(eq_cases)},
    {"hue", CASES(hue_cases)},
    {"colorbalance", CASES(colorbalance_cases)},
    {"vignette", CASES(vignette_cases)},
    {"sobel", CASES(sobel_cases)},
    {"roberts", CASES(roberts_cases)},
    {"scharr", CASES(scharr_cases)},
    {"kirsch", CASES(kirsch_cases)},
    {"edgedetect", CASES(edgedetect_cases)},
    {"curves", CASES(curves_cases)},
    {"lut3d", CASES(lut3d_cases)},
    {"deband", CASES(deband_cases)},
    {"gblur", CASES(gblur_cases)},
    {"avgblur", CASES(avgblur_cases)},
    {"boxblur", CASES(boxblur_cases)},
    {"unsharp", CASES(unsharp_cases)},
    {"hqdn3d", CASES(hqdn3d_cases)},
    {"bilateral", CASES(bilateral_cases)},
    {"nlmeans", CASES(nlmeans_cases)},
    {"yadif", CASES(yadif_cases)},
    {"bwdif", CASES(bwdif_cases)},
    {"colorkey", CASES(colorkey_cases)},
    {"chromakey", CASES(chromakey_cases)},
    {"despill", CASES(despill_cases)},
    {"lumakey", CASES(lumakey_cases)},
    {"negate", CASES(negate_cases)},
    {"colorchannelmixer", CASES(colorchannelmixer_cases)},
    {"colorlevels", CASES(colorlevels_cases)},
    {"fade", CASES(fade_cases)},
    {"lut", CASES(lut_cases)},
    {"lutrgb", CASES(lutrgb_cases)},
    {"drawbox", CASES(drawbox_cases)},
    {"drawgrid", CASES(drawgrid_cases)},
    {"null", CASES(null_cases)},
    {"copy", CASES(copy_cases)},
    {"format", CASES(format_cases)},
    {"fps", CASES(fps_cases)},
    {"framestep", CASES(framestep_cases)},
    {"setsar", CASES(setsar_cases)},
    {"setdar", CASES(setdar_cases)},
};

#define FILTER_TABLE_SIZE ((int)(sizeof filter_table / sizeof filter_table[0]))

#endif
