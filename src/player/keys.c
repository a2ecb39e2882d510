/* keys.c - the player's key bindings and presets: const tables that the
 * event loop, --keys and the help screen all read. */
#include "player.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "../io/io.h"

const clv_preset clv_presets[9] = {
    {"none", "", -1, NULL},
    {"sharpen", "sharpen", -1, NULL},
    {"emboss", "emboss", -1, NULL},
    {"prewitt", "prewitt", 0, "scale"},
    {"median", "median=radius=1", 0, "radius"},
    {"erode", "threshold=t=128,erode", 0, "t"},
    {"equalize", "equalize", 0, "mode"},
    {"noise", "noise=amount=0.05", 0, "amount"},
    {"quantize", "quantize=colors=8", 0, "colors"},
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
    {"w", CLV_ACT_CYCLE, 0, "next -vf chain from the command line"},
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

void clv_keys_help(char *out, size_t size)
{
    size_t n = (size_t)snprintf(out, size, "Keys\n");
    for (int i = 0; i < clv_binding_count && n < size; i++) {
        const clv_binding *b = &clv_bindings[i];
        if (b->action == CLV_ACT_PRESET) {
            const clv_preset *p = &clv_presets[b->arg - 1];
            n += (size_t)snprintf(out + n, size - n, "  %-12s preset: %s%s%s%s\n", b->key,
                                  p->chain[0] ? p->chain : "no filter",
                                  p->param ? " (up/down: " : "", p->param ? p->param : "",
                                  p->param ? ")" : "");
        } else {
            n += (size_t)snprintf(out + n, size - n, "  %-12s %s\n", b->key, b->help);
        }
    }
}
