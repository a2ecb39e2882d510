/* test_parser.c - the chain parser: what it accepts and, for every class of
 * mistake, the exact message. */
#include <string.h>

#include "harness.h"

static void expect_chain(const char *text, const char *want)
{
    clv_chain_desc *desc = NULL;
    clv_msg msg = {{0}};
    int err = clv_chain_parse(text, &desc, &msg);
    CHECK(err == 0, "'%s' refused: %s", text, msg.text);
    if (err)
        return;
    char got[2048];
    clv_chain_format(desc, got, sizeof got);
    CHECK(strcmp(got, want) == 0, "'%s'\n   got: %s\n  want: %s", text, got, want);
    clv_chain_desc_destroy(desc);
}

static void expect_error(const char *text, int code, const char *want)
{
    clv_chain_desc *desc = NULL;
    clv_msg msg = {{0}};
    int err = clv_chain_parse(text, &desc, &msg);
    CHECK(err == code, "'%s': got %d (%s), want %d", text, err, msg.text, code);
    /* The first line says what is wrong; the excerpt after it is checked
     * by test_parser_excerpts. */
    size_t first = strcspn(msg.text, "\n");
    CHECK(strlen(want) == first && strncmp(msg.text, want, first) == 0,
          "'%s'\n   got: %s\n  want: %s", text, msg.text, want);
    CHECK(err == 0 || desc == NULL, "'%s': a failed parse gave a description", text);
    clv_chain_desc_destroy(desc);
}

int test_parser_chains(void)
{
    expect_chain("sharpen", "sharpen");
    expect_chain("median=radius=2,sharpen,equalize=mode=gray",
                 "median=radius=2,sharpen,equalize=mode=gray");
    expect_chain("median=2", "median=radius=2");
    expect_chain("erode=2:3", "erode=radius=2:iterations=3");
    expect_chain("erode=iterations=3", "erode=radius=1:iterations=3");
    expect_chain("erode=iterations=3:radius=2", "erode=radius=2:iterations=3");
    expect_chain("erode=2:iterations=4", "erode=radius=2:iterations=4");
    /* ffmpeg's timeline option, written back quoted after the values */
    expect_chain("hflip=enable='between(t,1,2)'", "hflip=enable='between(t,1,2)'");
    expect_chain("median=enable=gte(n\\,3):radius=2", "median=radius=2:enable='gte(n,3)'");
    expect_chain("sharpen,hqdn3d=enable='lt(w*h,1e6)'",
                 "sharpen,hqdn3d=luma_spatial=0:chroma_spatial=0:luma_tmp=0:chroma_tmp=0:"
                 "enable='lt(w*h,1e6)'");
    expect_chain("convolution=matrix='1 2 1 2 4 2 1 2 1'",
                 "convolution=matrix='1 2 1 2 4 2 1 2 1':div=0:bias=0");
    expect_chain("convolution='1 2 1 2 4 2 1 2 1':16:-3",
                 "convolution=matrix='1 2 1 2 4 2 1 2 1':div=16:bias=-3");
    expect_chain("convolution=matrix=1\\ 2\\ 1\\ 2\\ 4\\ 2\\ 1\\ 2\\ 1",
                 "convolution=matrix='1 2 1 2 4 2 1 2 1':div=0:bias=0");
    expect_chain(" median = radius = 3 , gray ", "median=radius=3,gray");
    expect_chain("prewitt=scale=1.5:delta=-4", "prewitt=scale=1.5:delta=-4");
    /* ffmpeg's numbers are expressions (libavutil/opt.c): an integer's is
     * rounded half to even, as llrint; default, min and max are the
     * parameter's own */
    /* fps: ffmpeg's options; after it only filters that do not depend on
     * the frame's number or time */
    expect_chain("fps=24", "fps=fps=24:start_time='':round=near:eof_action=round");
    expect_chain("fps=ntsc:start_time=0.5:round=up:eof_action=pass,hflip,rotate=PI/6",
                 "fps=fps=ntsc:start_time=0.5:round=up:eof_action=pass,hflip,rotate=angle=PI/6:"
                 "out_w=iw:out_h=ih:fillcolor=0x000000FF:bilinear=1");
    expect_chain("fade=in:0:5,fps=source_fps/2",
                 "fade=type=in:start_frame=0:nb_frames=5:alpha=0:start_time=0:duration=0:"
                 "color=0x000000FF,fps=fps=source_fps/2:start_time='':round=near:eof_action=round");
    expect_chain("median=2.5", "median=radius=2");
    expect_chain("median=3.5", "median=radius=4");
    expect_chain("median=radius=default+1", "median=radius=2");
    expect_chain("median=radius=max", "median=radius=7");
    expect_chain("median=radius=0x3", "median=radius=3");
    expect_chain("prewitt=scale=3/2:delta=-2*2", "prewitt=scale=1.5:delta=-4");
    expect_chain("prewitt=scale=PI", "prewitt=scale=3.142:delta=0");
    expect_chain("erode=1e0:iterations=min", "erode=radius=1:iterations=1");
    expect_chain("noise=gaussian", "noise=type=gaussian:amount=0.05:sigma=10:seed=0");
    expect_chain("noise=seed=4294967295",
                 "noise=type=saltpepper:amount=0.05:sigma=10:seed=4294967295");
    expect_chain("quantize=colors=256:iterations=0", "quantize=colors=256:iterations=0");
    expect_chain("threshold=t=0", "threshold=t=0");
    expect_chain("gray=", "gray");
    /* texts and file names: quoted where they need it, empty ones too */
    expect_chain("curves=r='0/0 0.5/0.6 1/1':psfile=in/film.acv:interp=pchip",
                 "curves=preset=none:master='':red='0/0 0.5/0.6 1/1':green='':blue='':all='':"
                 "psfile=in/film.acv:interp=pchip");
    expect_chain("lut3d=grade.cube", "lut3d=file=grade.cube:clut=all:interp=tetrahedral");
    expect_chain("lut3d='my grades/a:b.cube':interp=prism",
                 "lut3d=file='my grades/a:b.cube':clut=all:interp=prism");
    /* ffmpeg's booleans (AV_OPT_TYPE_BOOL, set_string_bool): its words in
     * any case, for an integer of range 0 to 1 only */
    expect_chain("crop=iw/2:ih/2:keep_aspect=true:exact=off",
                 "crop=w=iw/2:h=ih/2:x=(in_w-out_w)/2:y=(in_h-out_h)/2:keep_aspect=1:exact=0");
    expect_chain("crop=keep_aspect=YES:exact=Enabled",
                 "crop=w=iw:h=ih:x=(in_w-out_w)/2:y=(in_h-out_h)/2:keep_aspect=1:exact=1");
    expect_chain("crop=keep_aspect=y:exact=disable",
                 "crop=w=iw:h=ih:x=(in_w-out_w)/2:y=(in_h-out_h)/2:keep_aspect=1:exact=0");
    expect_chain("rotate=1:bilinear=false", "rotate=angle=1:out_w=iw:out_h=ih:fillcolor=0x000000FF:"
                                            "bilinear=0");
    expect_chain("rotate=1:bilinear=no", "rotate=angle=1:out_w=iw:out_h=ih:fillcolor=0x000000FF:"
                                         "bilinear=0");
    expect_chain("vignette=dither=on",
                 "vignette=angle=PI/5:x0=w/2:y0=h/2:mode=forward:eval=init:dither=1:aspect=1");
    /* ffmpeg's numbers for named values (its AVOption constants) */
    expect_chain("transpose=1:passthrough=1", "transpose=dir=1:passthrough=landscape");
    expect_chain("transpose=1:passthrough=2", "transpose=dir=1:passthrough=portrait");
    expect_chain("scale=w=iw/2:h=-1:force_original_aspect_ratio=1",
                 "scale=w=iw/2:h=-1:flags=bicubic:param0=123456:param1=123456:"
                 "force_original_aspect_ratio=decrease:force_divisible_by=1");
    expect_chain("lut3d=a.cube:clut=0:interp=1", "lut3d=file=a.cube:clut=first:interp=trilinear");
    expect_chain("eq=eval=1", "eq=contrast=1.0:brightness=0.0:saturation=1.0:gamma=1.0:"
                              "gamma_r=1.0:gamma_g=1.0:gamma_b=1.0:gamma_weight=1.0:eval=frame");
    /* scale's size (vf_scale's size and s): WxH or ffmpeg's names, also
     * as the first value when no height follows */
    expect_chain("scale=640x360", "scale=w=640:h=360"
                                  ":flags=bicubic:param0=123456:param1=123456:force_original_"
                                  "aspect_ratio=disable:force_divisible_by=1");
    expect_chain("scale=size=320x180", "scale=w=320:h=180"
                                       ":flags=bicubic:param0=123456:param1=123456:force_original_"
                                       "aspect_ratio=disable:force_divisible_by=1");
    expect_chain("scale=s=hd720:flags=lanczos",
                 "scale=w=1280:h=720"
                 ":flags=lanczos:param0=123456:param1=123456:force_original_aspect_ratio=disable:"
                 "force_divisible_by=1");
    expect_chain("scale=qvga", "scale=w=320:h=240"
                               ":flags=bicubic:param0=123456:param1=123456:force_original_aspect_"
                               "ratio=disable:force_divisible_by=1");
    expect_chain("scale=w=hd1080", "scale=w=1920:h=1080"
                                   ":flags=bicubic:param0=123456:param1=123456:force_original_"
                                   "aspect_ratio=disable:force_divisible_by=1");
    expect_chain("scale=iw/2:-1", "scale=w=iw/2:h=-1"
                                  ":flags=bicubic:param0=123456:param1=123456:force_original_"
                                  "aspect_ratio=disable:force_divisible_by=1");
    expect_chain("scale=2k:-2", "scale=w=2k:h=-2"
                                ":flags=bicubic:param0=123456:param1=123456:force_original_aspect_"
                                "ratio=disable:force_divisible_by=1");
    expect_chain("", "");
    expect_chain("   ", "");
    return 0;
}

/* The files a chain reads (clv_chain_desc_files): the FILE parameters
 * given, in order, and how many when the list is too short. */
static void expect_files(const char *text, int count, const char *const *want)
{
    clv_chain_desc *desc = NULL;
    CHECK(clv_chain_parse(text, &desc, NULL) == 0, "'%s' refused", text);
    if (!desc)
        return;
    const char *files[4] = {NULL, NULL, NULL, NULL};
    int n = clv_chain_desc_files(desc, files, 2);
    CHECK(n == count, "'%s': %d files, want %d", text, n, count);
    for (int i = 0; i < count && i < 2; i++)
        CHECK(files[i] && !strcmp(files[i], want[i]), "'%s': file %d is '%s', want '%s'", text, i,
              files[i] ? files[i] : "(none)", want[i]);
    CHECK(!files[2], "'%s': more files written than asked", text);
    clv_chain_desc_destroy(desc);
}

int test_parser_errors(void)
{
    static const char *const two[] = {"a.cube", "b.acv"};
    expect_files("lut3d=a.cube,curves=psfile=b.acv,sobel", 2, two);
    expect_files("lut3d=a.cube,curves,curves=psfile=b.acv:r='0/0 1/1',lut3d=file=c.cube", 3, two);
    expect_files("curves=preset=vintage,sobel", 0, two);
    expect_error("medain", CLV_EPARSE,
                 "unknown filter 'medain'; did you mean 'median'? (filters: convolution, "
                 "sharpen, emboss, prewitt, median, erode, dilate, threshold, gray, equalize, "
                 "noise, quantize, hflip, vflip, scale, crop, pad, transpose, rotate, tonemap, eq, "
                 "hue, colorbalance, vignette, sobel, roberts, scharr, kirsch, edgedetect, "
                 "curves, lut3d, deband, gblur, "
                 "boxblur, avgblur, unsharp, hqdn3d, bilateral, nlmeans, yadif, bwdif, "
                 "colorkey, chromakey, despill, lumakey, negate, colorchannelmixer, colorlevels, "
                 "fade, lut, lutrgb, "
                 "drawbox, "
                 "drawgrid, null, copy, "
                 "format, "
                 "fps, framestep, setsar, setdar, "
                 "opencl=file=KERNEL.cl)");
    expect_error("blur", CLV_EPARSE,
                 "unknown filter 'blur'; did you mean 'gblur'? (filters: convolution, sharpen, "
                 "emboss, prewitt, median, "
                 "erode, dilate, threshold, gray, equalize, noise, quantize, hflip, vflip, scale, "
                 "crop, pad, transpose, rotate, tonemap, eq, hue, colorbalance, vignette, sobel, "
                 "roberts, scharr, kirsch, edgedetect, curves, lut3d, deband, gblur, boxblur, "
                 "avgblur, "
                 "unsharp, hqdn3d, "
                 "bilateral, nlmeans, yadif, bwdif, "
                 "colorkey, chromakey, despill, lumakey, negate, colorchannelmixer, colorlevels, "
                 "fade, lut, lutrgb, "
                 "drawbox, "
                 "drawgrid, null, copy, "
                 "format, "
                 "fps, framestep, setsar, setdar, "
                 "opencl=file=KERNEL.cl)");
    expect_error("median=radus=2", CLV_EPARSE,
                 "filter 'median' has no parameter 'radus'; did you mean 'radius'? (parameters: "
                 "radius)");
    expect_error("median=size=2", CLV_EPARSE,
                 "filter 'median' has no parameter 'size' (parameters: radius)");
    expect_error("sharpen=amount=2", CLV_EPARSE,
                 "filter 'sharpen' takes no parameters; got "
                 "'amount'");
    expect_error("median=radius=9", CLV_ERANGE,
                 "filter 'median' parameter 'radius': 9 is out of range (allowed: 1 to 7)");
    expect_error("median=0", CLV_ERANGE,
                 "filter 'median' parameter 'radius': 0 is out of range (allowed: 1 to 7)");
    expect_error("scale=100:100:enable=1", CLV_EPARSE,
                 "filter 'scale' takes no enable= (ffmpeg's timeline): it may change the "
                 "frame's size");
    expect_error("bwdif=enable=1", CLV_EPARSE,
                 "filter 'bwdif' takes no enable= (ffmpeg's timeline): it changes the frame rate");
    expect_error("gblur=enable='between(x,1,2)'", CLV_EPARSE,
                 "filter 'gblur' parameter 'enable': expression 'between(x,1,2)': unknown name "
                 "'x' at character 9 (its variables: t, n, pos, w, h)");
    expect_error("gblur=enable=1:enable=0", CLV_EPARSE,
                 "filter 'gblur': parameter 'enable' is given twice");
    expect_error("gblur=enable=''", CLV_EPARSE,
                 "filter 'gblur' parameter 'enable': empty (an expression of t, n, pos, w and h, "
                 "1 to 255 characters, no quotes inside)");
    expect_error("fps=24,fade=in:0:5", CLV_EPARSE,
                 "filter 'fade' (#2 in the chain) comes after fps (#1) and depends on the "
                 "frame's number or time (or on the frames before it): clvid picks fps's frames "
                 "at the chain's end, so such a filter would see the frames fps leaves out; put "
                 "fps after it");
    expect_error("fps=24,crop=iw/2:ih/2:n:0", CLV_EPARSE,
                 "filter 'crop' (#2 in the chain) comes after fps (#1) and depends on the "
                 "frame's number or time (or on the frames before it): clvid picks fps's frames "
                 "at the chain's end, so such a filter would see the frames fps leaves out; put "
                 "fps after it");
    expect_error("fps=24,hflip,sharpen=enable='gte(t,1)'", CLV_EPARSE,
                 "filter 'sharpen' (#3 in the chain) comes after fps (#1) and depends on the "
                 "frame's number or time (or on the frames before it): clvid picks fps's frames "
                 "at the chain's end, so such a filter would see the frames fps leaves out; put "
                 "fps after it");
    expect_error("fps=24,hqdn3d", CLV_EPARSE,
                 "filter 'hqdn3d' (#2 in the chain) comes after fps (#1) and depends on the "
                 "frame's number or time (or on the frames before it): clvid picks fps's frames "
                 "at the chain's end, so such a filter would see the frames fps leaves out; put "
                 "fps after it");
    expect_error("framestep=2,noise", CLV_EPARSE,
                 "filter 'noise' (#2 in the chain) comes after framestep (#1) and depends on the "
                 "frame's number or time (or on the frames before it): clvid picks framestep's "
                 "frames at the chain's end, so such a filter would see the frames framestep "
                 "leaves out; put framestep after it");
    expect_error("framestep=0", CLV_ERANGE,
                 "filter 'framestep' parameter 'step': 0 is out of range (allowed: 1 to "
                 "2147483647)");
    expect_error("fps=24,framestep=2", CLV_EPARSE,
                 "filter 'framestep' (#2 in the chain) comes after fps (#1): a chain has one "
                 "frame rate");
    expect_error("fps=24,null,fps=12", CLV_EPARSE,
                 "filter 'fps' (#3 in the chain) comes after fps (#1): a chain has one frame "
                 "rate");
    expect_error("fps=24:start_time=soon", CLV_EPARSE,
                 "filter 'fps' parameter 'start_time': 'soon' is not a number of seconds (the "
                 "time of the first frame out: 0, 1.5, -2, 1/3)");
    expect_error("fps=24:start_time=1/0", CLV_EPARSE,
                 "filter 'fps' parameter 'start_time': '1/0' is not a number of seconds (the "
                 "time of the first frame out: 0, 1.5, -2, 1/3)");
    expect_error("fps=fps=x", CLV_EPARSE,
                 "filter 'fps' parameter 'fps': expression 'x': unknown name 'x' at character 1");
    expect_error("median=radius=two", CLV_EPARSE,
                 "filter 'median' parameter 'radius': 'two' is not an integer, nor an expression "
                 "of numbers (allowed: 1 to 7)");
    /* ffmpeg's numbers are expressions, in range before an integer rounds */
    expect_error("median=0.6", CLV_ERANGE,
                 "filter 'median' parameter 'radius': 0.6 is out of range (allowed: 1 to 7)");
    expect_error("median=2k", CLV_ERANGE,
                 "filter 'median' parameter 'radius': 2k = 2000 is out of range (allowed: 1 to "
                 "7)");
    expect_error("median=radius=(1+", CLV_EPARSE,
                 "filter 'median' parameter 'radius': '(1+' is not an integer, nor an "
                 "expression of numbers (allowed: 1 to 7)");
    expect_error("gblur=steps=all", CLV_ERANGE,
                 "filter 'gblur' parameter 'steps': all = -1 is out of range (allowed: 1 to 6)");
    expect_error("gblur=sigma=0/0", CLV_EPARSE,
                 "filter 'gblur' parameter 'sigma': '0/0' is not a number, nor an expression of "
                 "numbers (allowed: 0 to 1024)");
    expect_error("gblur=sigma=-1/2", CLV_ERANGE,
                 "filter 'gblur' parameter 'sigma': -1/2 = -0.5 is out of range (allowed: 0 to "
                 "1024)");
    expect_error("median=2:3", CLV_EPARSE,
                 "filter 'median' takes 1 value in order; '3' is one too many");
    expect_error("median=radius=2:radius=3", CLV_EPARSE,
                 "filter 'median': parameter 'radius' is given twice");
    /* the keyers: ffmpeg 5.1's ranges */
    expect_error("colorkey=green:1.5", CLV_ERANGE,
                 "filter 'colorkey' parameter 'similarity': 1.5 is out of range (allowed: 0.01 "
                 "to 1)");
    expect_error("chromakey=similarity=0.001", CLV_ERANGE,
                 "filter 'chromakey' parameter 'similarity': 0.001 is out of range (allowed: "
                 "0.01 to 1)");
    expect_error("despill=red=101", CLV_ERANGE,
                 "filter 'despill' parameter 'red': 101 is out of range (allowed: -100 to 100)");
    expect_error("lumakey=0.5:0.1:2", CLV_ERANGE,
                 "filter 'lumakey' parameter 'softness': 2 is out of range (allowed: 0 to 1)");
    expect_error("prewitt=scale=100", CLV_ERANGE,
                 "filter 'prewitt' parameter 'scale': 100 is out of range (allowed: 0 to 64)");
    expect_error("prewitt=scale=nan", CLV_EPARSE,
                 "filter 'prewitt' parameter 'scale': 'nan' is not a number, nor an expression "
                 "of numbers (allowed: 0 to 64)");
    expect_error("equalize=mode=color", CLV_EPARSE,
                 "filter 'equalize' parameter 'mode': 'color' is not one of luma|gray");
    expect_error("convolution=matrix='1 2 3'", CLV_EPARSE,
                 "filter 'convolution' parameter 'matrix': 3 coefficients; a matrix has 9 "
                 "(3x3), 25 (5x5) or 49 (7x7)");
    expect_error("convolution=matrix='1 2 x 4 5 6 7 8 9'", CLV_EPARSE,
                 "filter 'convolution' parameter 'matrix': 'x' is not an integer (coefficients "
                 "are integers from -10000 to 10000, separated by spaces)");
    expect_error("convolution=matrix='1 2 3 4 99999 6 7 8 9'", CLV_ERANGE,
                 "filter 'convolution' parameter 'matrix': coefficient 99999 is out of range "
                 "(allowed: -10000 to 10000)");
    expect_error("convolution=matrix='1 2 1", CLV_EPARSE,
                 "filter 'convolution' parameter 'matrix': unterminated quote");
    /* An escaped '=' is part of a value, not the end of a key (found by
     * fuzzing: the parser read past the end of the text). */
    expect_error("threshold=t\\=90", CLV_EPARSE,
                 "filter 'threshold' parameter 't': 't=90' is not an integer, nor an expression "
                 "of numbers (allowed: 0 to 255)");
    expect_error("convolution=matri\\=1", CLV_EPARSE,
                 "filter 'convolution' parameter 'matrix': 'matri=1' is not an integer "
                 "(coefficients are integers from -10000 to 10000, separated by spaces)");
    expect_error("sharpen,,gray", CLV_EPARSE, "empty filter (two commas, or a comma at an end?)");
    expect_error("sharpen,", CLV_EPARSE, "empty filter (two commas, or a comma at an end?)");
    expect_error("noise=seed=-1", CLV_ERANGE,
                 "filter 'noise' parameter 'seed': -1 is out of range (allowed: 0 to "
                 "4294967295)");
    expect_error("threshold=t=256", CLV_ERANGE,
                 "filter 'threshold' parameter 't': 256 is out of range (allowed: 0 to 255)");
    expect_error("quantize=colors=0", CLV_ERANGE,
                 "filter 'quantize' parameter 'colors': 0 is out of range (allowed: 1 to 256)");
    char many[4096] = "";
    for (int i = 0; i < CLV_CHAIN_MAX + 1; i++)
        strcat(many, i ? ",gray" : "gray");
    expect_error(many, CLV_EPARSE, "filter 'gray': more than 32 filters in one chain");
    /* booleans: ffmpeg's words; an integer of a wider range takes none */
    expect_error("crop=keep_aspect=maybe", CLV_EPARSE,
                 "filter 'crop' parameter 'keep_aspect': 'maybe' is not a boolean (allowed: 1, "
                 "0, true, false, yes, no, on, off, enable, disable, y, n, enabled, disabled)");
    expect_error("crop=keep_aspect=auto", CLV_EPARSE,
                 "filter 'crop' parameter 'keep_aspect': 'auto' is not a boolean (allowed: 1, "
                 "0, true, false, yes, no, on, off, enable, disable, y, n, enabled, disabled)");
    expect_error("crop=exact=2", CLV_ERANGE,
                 "filter 'crop' parameter 'exact': 2 is out of range (allowed: 0 to 1)");
    expect_error("median=radius=true", CLV_EPARSE,
                 "filter 'median' parameter 'radius': 'true' is not an integer, nor an "
                 "expression of numbers (allowed: 1 to 7)");
    /* ffmpeg's numbers: only those it has */
    expect_error("transpose=passthrough=3", CLV_EPARSE,
                 "filter 'transpose' parameter 'passthrough': '3' is not one of "
                 "none|landscape|portrait (or ffmpeg's number for one, 0 to 2)");
    expect_error("tonemap=tonemap=7", CLV_EPARSE,
                 "filter 'tonemap' parameter 'tonemap': '7' is not one of "
                 "none|linear|gamma|clip|reinhard|hable|mobius|bt2390 (or ffmpeg's number for "
                 "one, 0 to 6)");
    /* scale's size */
    expect_error("scale=size=huge", CLV_EPARSE,
                 "filter 'scale' parameter 'size': 'huge' is not a size (WxH, or one of ntsc, "
                 "pal, qntsc, qpal, sntsc, spal, film, ntsc-film, sqcif, qcif, cif, 4cif, 16cif, "
                 "qqvga, qvga, vga, svga, xga, uxga, qxga, sxga, qsxga, hsxga, wvga, wxga, wsxga, "
                 "wuxga, woxga, wqhd, wqsxga, wquxga, whsxga, whuxga, cga, ega, hd480, hd720, "
                 "hd1080, quadhd, 2k, 2kdci, 2kflat, 2kscope, 4k, 4kdci, 4kflat, 4kscope, nhd, "
                 "hqvga, wqvga, fwqvga, hvga, qhd, uhd2160, uhd4320)");
    expect_error("scale=s=0x360", CLV_EPARSE,
                 "filter 'scale' parameter 'size': '0x360' is not a size (WxH, or one of ntsc, "
                 "pal, qntsc, qpal, sntsc, spal, film, ntsc-film, sqcif, qcif, cif, 4cif, 16cif, "
                 "qqvga, qvga, vga, svga, xga, uxga, qxga, sxga, qsxga, hsxga, wvga, wxga, wsxga, "
                 "wuxga, woxga, wqhd, wqsxga, wquxga, whsxga, whuxga, cga, ega, hd480, hd720, "
                 "hd1080, quadhd, 2k, 2kdci, 2kflat, 2kscope, 4k, 4kdci, 4kflat, 4kscope, nhd, "
                 "hqvga, wqvga, fwqvga, hvga, qhd, uhd2160, uhd4320)");
    expect_error("scale=size=vga:w=10", CLV_EPARSE,
                 "filter 'scale': 'size' and 'w'/'h' cannot be set at the same time (a size "
                 "sets both)");
    expect_error("scale=640x360:h=100", CLV_EPARSE,
                 "filter 'scale' parameter 'w': expression '640x360': unexpected 'x' at "
                 "character 4");
    return 0;
}

/* Each error's second and third lines: the text around the fault, cut to
 * at most 60 characters with "...", and a caret under the fault; tokens of
 * any length are named by their length, never cut into another message. */
static void expect_excerpt(const char *text, const char *first, const char *excerpt,
                           const char *caret)
{
    clv_chain_desc *desc = NULL;
    clv_msg msg = {{0}};
    CHECK(clv_chain_parse(text, &desc, &msg) != 0, "'%.60s' passed", text);
    char want[1024];
    snprintf(want, sizeof want, "%s\n  %s\n  %s", first, excerpt, caret);
    CHECK(strcmp(msg.text, want) == 0, "'%.60s'\n   got: %s\n  want: %s", text, msg.text, want);
    clv_chain_desc_destroy(desc);
}

int test_parser_excerpts(void)
{
    expect_excerpt("median=radius=99",
                   "filter 'median' parameter 'radius': 99 is out of range "
                   "(allowed: 1 to 7)",
                   "median=radius=99", "              ^");
    expect_excerpt("sharpen,,gray", "empty filter (two commas, or a comma at an end?)",
                   "sharpen,,gray", "        ^");
    expect_excerpt("gray,median=2 x",
                   "filter 'median' parameter 'radius': '2 x' is not an "
                   "integer, nor an expression of numbers (allowed: 1 to 7)",
                   "gray,median=2 x", "            ^");
    expect_excerpt("gray,convolution=matrix='1 2",
                   "filter 'convolution' parameter 'matrix': unterminated quote",
                   "gray,convolution=matrix='1 2", "                        ^");
    /* Values that parse alone but not together, or a file not given, are
     * the chain's errors, shown at the filter (were found when the chain
     * was built: no excerpt, and exit 1 on the command line). */
    expect_excerpt("gray,hue=h=1:H=1",
                   "filter 'hue': H and h are incompatible and cannot be given together",
                   "gray,hue=h=1:H=1", "     ^");
    expect_excerpt("lut3d=file=", "filter 'lut3d': no file given (lut3d=file=GRADE.cube)",
                   "lut3d=file=", "^");
    /* pad's aspect out of ffmpeg's option range [0, DBL_MAX]. */
    expect_excerpt("gray,pad=aspect=-16/9",
                   "filter 'pad' parameter 'aspect': '-16/9' gives -1.77778, out of range [0, "
                   "1.79769e+308]",
                   "gray,pad=aspect=-16/9", "     ^");
    expect_excerpt("pad=aspect=0/0",
                   "filter 'pad' parameter 'aspect': '0/0' gives nan, out of range [0, "
                   "1.79769e+308]",
                   "pad=aspect=0/0", "^");
    expect_excerpt("gray,yadif, bwdif",
                   "filters 'yadif' (#2) and 'bwdif' (#3) both hold frames back; a chain takes "
                   "one such filter",
                   "gray,yadif, bwdif", "            ^");
    char text[12000], first[300], line[100];
    /* A 3000-digit value: out of range, shown cut; the excerpt around it. */
    snprintf(text, sizeof text, "sharpen,median=radius=");
    memset(text + strlen(text), '9', 3000);
    text[22 + 3000] = 0;
    snprintf(first, sizeof first,
             "filter 'median' parameter 'radius': %.40s... is out of "
             "range (allowed: 1 to 7)",
             text + 22);
    snprintf(line, sizeof line, "%.60s...", text);
    expect_excerpt(text, first, line, "                      ^");
    /* A 2000-character name; a 300-character parameter name; a value too
     * long for any parameter. */
    memset(text, 'x', 2000);
    text[2000] = 0;
    snprintf(first, sizeof first,
             "filter name '%.40s...' is too long (2000 characters; names "
             "are at most 63)",
             text);
    snprintf(line, sizeof line, "%.60s...", text);
    expect_excerpt(text, first, line, "^");
    snprintf(text, sizeof text, "gray,median=");
    memset(text + 12, 'r', 300);
    snprintf(text + 312, sizeof text - 312, "=2");
    snprintf(first, sizeof first,
             "filter 'median' has no parameter '%.40s...' (parameters: "
             "radius)",
             text + 12);
    snprintf(line, sizeof line, "%.60s...", text);
    expect_excerpt(text, first, line, "            ^");
    snprintf(text, sizeof text, "gray,median=");
    memset(text + 12, '1', 9000);
    text[9012] = 0;
    snprintf(line, sizeof line, "%.60s...", text);
    expect_excerpt(text, "filter 'median': a value of 9000 characters is too long (at most 8191)",
                   line, "            ^");
    /* Far into a long chain, the excerpt starts with "...". */
    snprintf(text, sizeof text, "gray,gray,gray,gray,gray,gray,gray,gray,median=radius=9,gray");
    expect_excerpt(text,
                   "filter 'median' parameter 'radius': 9 is out of range (allowed: 1 to "
                   "7)",
                   "...,gray,gray,gray,median=radius=9,gray", "                                 ^");
    return 0;
}

int test_parser_format(void)
{
    /* Formatting then parsing again gives the same chain, for every filter
     * with its defaults (lut3d with the file it cannot go without, format
     * with its pixel formats, which have no default in ffmpeg either). */
    for (int i = 0; i < clv_filter_count(); i++) {
        const char *name = clv_filter_name(clv_filter_at(i));
        char chain[64];
        snprintf(chain, sizeof chain, "%s%s", name,
                 !strcmp(name, "lut3d")    ? "=grade.cube"
                 : !strcmp(name, "format") ? "=yuv420p|nv12"
                                           : "");
        clv_chain_desc *a = NULL, *b = NULL;
        clv_msg msg = {{0}};
        CHECK(clv_chain_parse(chain, &a, &msg) == 0, "%s: %s", chain, msg.text);
        char text[2048] = "", again[2048] = "";
        if (a)
            clv_chain_format(a, text, sizeof text);
        CHECK(clv_chain_parse(text, &b, &msg) == 0, "%s: %s", text, msg.text);
        if (b)
            clv_chain_format(b, again, sizeof again);
        CHECK_EQ_STR(again, text);
        clv_chain_desc_destroy(a);
        clv_chain_desc_destroy(b);
        /* Every default lies inside its own range. */
        const clv_filter *f = clv_filter_at(i);
        for (int j = 0; j < clv_filter_param_count(f); j++) {
            clv_value v;
            CHECK(clv_param_parse(f, j, clv_filter_param(f, j)->def, &v, &msg) == 0,
                  "%s default: %s", name, msg.text);
        }
    }
    return 0;
}
