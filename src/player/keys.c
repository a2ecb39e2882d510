/* keys.c - the player's key bindings and presets: const tables that the
 * event loop, --keys and the help screen all read. */
#include "player.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "../io/io.h"

/* Two banks in one table: keys 1-9 pick clv_presets[0..8], shift+1..9
 * clv_presets[9..17] (the filters of issue 36: blur, sharpen, denoise,
 * colour, deinterlacing). The second bank's values are chosen to stay interactive at 720p
 * on a CPU device (nlmeans's small patch and window) and to show what the
 * filter does at a glance; up/down then move the parameter named. */
const clv_preset clv_presets[CLV_PRESET_COUNT] = {
    {"none", "", -1, NULL},
    {"sharpen", "sharpen", -1, NULL},
    {"emboss", "emboss", -1, NULL},
    {"prewitt", "prewitt", 0, "scale"},
    {"median", "median=radius=1", 0, "radius"},
    {"erode", "threshold=t=128,erode", 0, "t"},
    {"equalize", "equalize", 0, "mode"},
    {"noise", "noise=amount=0.05", 0, "amount"},
    {"quantize", "quantize=colors=8", 0, "colors"},
    /* shift+1..9 */
    {"gblur", "gblur=sigma=2", 0, "sigma"},
    {"unsharp", "unsharp", 0, "luma_amount"},   /* ffmpeg's default 5:5:1.0 */
    {"boxblur", "boxblur", 0, "luma_power"},    /* its radius is an expression: no step */
    {"hqdn3d", "hqdn3d=4", 0, "luma_spatial"},  /* 4 is its default (0), stepped from there */
    {"nlmeans", "nlmeans=s=3:p=3:r=7", 0, "s"}, /* ffmpeg's p=7:r=15: 6 times the work */
    {"bilateral", "bilateral=sigmaS=3:sigmaR=0.1", 0, "sigmaR"},
    {"eq", "eq=contrast=1.2:saturation=1.3", -1, NULL}, /* eq's options are expressions */
    /* The colour-grading slot. No .cube file ships with clvid (media/,
     * examples/), so a preset can't name one: ffmpeg's preset curves, which
     * up/down cycle through, stand for a LUT here. */
    {"curves", "curves=preset=increase_contrast", 0, "preset"},
    /* The deinterlacer: ffmpeg's default mode, a frame a field (twice the
     * rate); up/down cycle the field order (auto, tff, bff). */
    {"bwdif", "bwdif", 0, "parity"},
};

const clv_binding clv_bindings[] = {
    {"1", CLV_ACT_PRESET, 1, NULL},
    {"2", CLV_ACT_PRESET, 2, NULL},
    {"3", CLV_ACT_PRESET, 3, NULL},
    {"4", CLV_ACT_PRESET, 4, NULL},
    {"5", CLV_ACT_PRESET, 5, NULL},
    {"6", CLV_ACT_PRESET, 6, NULL},
    {"7", CLV_ACT_PRESET, 7, NULL},
    {"8", CLV_ACT_PRESET, 8, NULL},
    {"9", CLV_ACT_PRESET, 9, NULL},
    {"shift+1", CLV_ACT_PRESET, 10, NULL},
    {"shift+2", CLV_ACT_PRESET, 11, NULL},
    {"shift+3", CLV_ACT_PRESET, 12, NULL},
    {"shift+4", CLV_ACT_PRESET, 13, NULL},
    {"shift+5", CLV_ACT_PRESET, 14, NULL},
    {"shift+6", CLV_ACT_PRESET, 15, NULL},
    {"shift+7", CLV_ACT_PRESET, 16, NULL},
    {"shift+8", CLV_ACT_PRESET, 17, NULL},
    {"shift+9", CLV_ACT_PRESET, 18, NULL},
    {"w", CLV_ACT_CYCLE, 0,
     "next -vf chain from the command line (with graphs: the next -filter_complex)"},
    {"up", CLV_ACT_PARAM, 1, "raise the active filter's main parameter"},
    {"down", CLV_ACT_PARAM, -1, "lower it"},
    {"tab", CLV_ACT_NEXT_PARAM, 0, "up/down move the next parameter (-vf chains)"},
    {"r", CLV_ACT_RELOAD, 0, "reload the chain's kernel files (opencl=file=...)"},
    {"t", CLV_ACT_TONEMAP, 0, "HDR (PQ, HLG) sources: tone-mapped to SDR for the display on / off"},
    {"space", CLV_ACT_PAUSE, 0, "pause / resume"},
    {"p", CLV_ACT_PAUSE, 0, "pause / resume"},
    {".", CLV_ACT_STEP, 0, "step one frame (pauses)"},
    {"left", CLV_ACT_SEEK, -5, "seek back 5 s"},
    {"right", CLV_ACT_SEEK, 5, "seek forward 5 s"},
    {"shift+left", CLV_ACT_SEEK, -60, "seek back 60 s"},
    {"shift+right", CLV_ACT_SEEK, 60, "seek forward 60 s"},
    {"c", CLV_ACT_COMPARE, 0,
     "split compare view: original left, filtered right (drag the divider)"},
    {"f", CLV_ACT_FULLSCREEN, 0, "fullscreen on / off"},
    {"s", CLV_ACT_SCREENSHOT, 0,
     "save the filtered frame as PNG at source size (clvid-shot-N.png)"},
    {"i", CLV_ACT_HUD, 0, "HUD on / off"},
    {"h", CLV_ACT_HELP, 0, "this help"},
    {"m", CLV_ACT_MUTE, 0, "mute / unmute"},
    {"-", CLV_ACT_VOLUME, -1, "volume down"},
    {"=", CLV_ACT_VOLUME, 1, "volume up"},
    {"q", CLV_ACT_QUIT, 0, "quit"},
    {"esc", CLV_ACT_QUIT, 0, "quit"},
};
const int clv_binding_count = (int)(sizeof clv_bindings / sizeof clv_bindings[0]);

const clv_binding *clv_binding_named(const char *key)
{
    for (int i = 0; i < clv_binding_count; i++)
        if (!strcasecmp(clv_bindings[i].key, key))
            return &clv_bindings[i];
    if (!strncasecmp(key, "shift+", 6))
        return clv_binding_named(key + 6); /* shift+KEY with no binding of its own */
    return NULL;
}

int clv_player_check_keys(const char *keys, clv_msg *msg)
{
    char copy[1024];
    snprintf(copy, sizeof copy, "%s", keys ? keys : "");
    for (char *save = NULL, *t = strtok_r(copy, " ,", &save); t; t = strtok_r(NULL, " ,", &save))
        if (!clv_binding_named(t))
            return clv_io_fail(msg, CLV_EOPTION,
                               "--keys: unknown key '%.100s' (press h in the window, or see clvid "
                               "play --help)",
                               t);
    return 0;
}

const char *clv_preset_key(int n)
{
    for (int i = 0; i < clv_binding_count; i++)
        if (clv_bindings[i].action == CLV_ACT_PRESET && clv_bindings[i].arg == n)
            return clv_bindings[i].key;
    return "";
}

/* A preset as the help shows it: its chain and the parameter up/down move. */
static void preset_text(int n, char *out, size_t size)
{
    const clv_preset *p = &clv_presets[n - 1];
    snprintf(out, size, "%s%s%s%s", p->chain[0] ? p->chain : "no filter",
             p->param ? " (up/down: " : "", p->param ? p->param : "", p->param ? ")" : "");
}

void clv_keys_help(char *out, size_t size)
{
    /* The second bank's presets go beside the first's (1 and shift+1 on one
     * line): one column of 18 would not fit a 720-point window. */
    size_t n = (size_t)snprintf(out, size, "Keys\n");
    for (int i = 0; i < clv_binding_count && n < size; i++) {
        const clv_binding *b = &clv_bindings[i];
        if (b->action == CLV_ACT_PRESET && b->arg > CLV_PRESET_BANK)
            continue; /* shown beside its first-bank key */
        if (b->action == CLV_ACT_PRESET) {
            char first[128], second[128] = "";
            preset_text(b->arg, first, sizeof first);
            const char *key = clv_preset_key(b->arg + CLV_PRESET_BANK);
            if (key[0])
                preset_text(b->arg + CLV_PRESET_BANK, second, sizeof second);
            n += (size_t)snprintf(out + n, size - n, "  %-12s %-36s %-8s %s\n", b->key, first, key,
                                  second);
        } else {
            n += (size_t)snprintf(out + n, size - n, "  %-12s %s\n", b->key, b->help);
        }
    }
}
