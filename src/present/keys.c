/* keys.c - the window's key bindings and presets: const tables that the
 * event loop, --keys and the help screen all read. */
#include "present.h"

#include <SDL.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

const clv_preset clv_presets[9] = {
    {"none", "", -1, NULL, 0},
    {"sharpen", "sharpen", -1, NULL, 0},
    {"emboss", "emboss", -1, NULL, 0},
    {"prewitt", "prewitt", 0, "scale", 0.25},
    {"median", "median=radius=1", 0, "radius", 1},
    {"erode", "threshold=t=128,erode", 0, "t", 8},
    {"equalize", "equalize", 0, "mode", 1},
    {"noise", "noise=amount=0.05", 0, "amount", 0.05},
    {"quantize", "quantize=colors=8", 0, "colors", 1},
};

const clv_binding clv_bindings[] = {
    {"1", SDLK_1, 0, CLV_ACT_PRESET, 1, NULL},
    {"2", SDLK_2, 0, CLV_ACT_PRESET, 2, NULL},
    {"3", SDLK_3, 0, CLV_ACT_PRESET, 3, NULL},
    {"4", SDLK_4, 0, CLV_ACT_PRESET, 4, NULL},
    {"5", SDLK_5, 0, CLV_ACT_PRESET, 5, NULL},
    {"6", SDLK_6, 0, CLV_ACT_PRESET, 6, NULL},
    {"7", SDLK_7, 0, CLV_ACT_PRESET, 7, NULL},
    {"8", SDLK_8, 0, CLV_ACT_PRESET, 8, NULL},
    {"9", SDLK_9, 0, CLV_ACT_PRESET, 9, NULL},
    {"w", SDLK_w, 0, CLV_ACT_CYCLE, 0, "next -vf chain from the command line"},
    {"up", SDLK_UP, 0, CLV_ACT_PARAM, 1, "raise the active filter's main parameter"},
    {"down", SDLK_DOWN, 0, CLV_ACT_PARAM, -1, "lower it"},
    {"space", SDLK_SPACE, 0, CLV_ACT_PAUSE, 0, "pause / resume"},
    {"p", SDLK_p, 0, CLV_ACT_PAUSE, 0, "pause / resume"},
    {".", SDLK_PERIOD, 0, CLV_ACT_STEP, 0, "step one frame (pauses)"},
    {"left", SDLK_LEFT, 0, CLV_ACT_SEEK, -5, "seek back 5 s"},
    {"right", SDLK_RIGHT, 0, CLV_ACT_SEEK, 5, "seek forward 5 s"},
    {"shift+left", SDLK_LEFT, 1, CLV_ACT_SEEK, -60, "seek back 60 s"},
    {"shift+right", SDLK_RIGHT, 1, CLV_ACT_SEEK, 60, "seek forward 60 s"},
    {"c", SDLK_c, 0, CLV_ACT_COMPARE, 0,
     "split compare view: original left, filtered right (drag the divider)"},
    {"f", SDLK_f, 0, CLV_ACT_FULLSCREEN, 0, "fullscreen on / off"},
    {"s", SDLK_s, 0, CLV_ACT_SCREENSHOT, 0,
     "save the filtered frame as PNG at source size (clvid-shot-N.png)"},
    {"i", SDLK_i, 0, CLV_ACT_HUD, 0, "HUD on / off"},
    {"h", SDLK_h, 0, CLV_ACT_HELP, 0, "this help"},
    {"m", SDLK_m, 0, CLV_ACT_MUTE, 0, "mute / unmute"},
    {"-", SDLK_MINUS, 0, CLV_ACT_VOLUME, -1, "volume down"},
    {"=", SDLK_EQUALS, 0, CLV_ACT_VOLUME, 1, "volume up"},
    {"q", SDLK_q, 0, CLV_ACT_QUIT, 0, "quit"},
    {"esc", SDLK_ESCAPE, 0, CLV_ACT_QUIT, 0, "quit"},
};
const int clv_binding_count = (int)(sizeof clv_bindings / sizeof clv_bindings[0]);

const clv_binding *clv_binding_for_key(int keycode, int shift)
{
    const clv_binding *plain = NULL;
    for (int i = 0; i < clv_binding_count; i++) {
        if (clv_bindings[i].keycode != keycode)
            continue;
        if (clv_bindings[i].shift == shift)
            return &clv_bindings[i];
        if (!clv_bindings[i].shift)
            plain = &clv_bindings[i];
    }
    return plain; /* shift+key with no binding of its own acts as the key */
}

const clv_binding *clv_binding_named(const char *name)
{
    for (int i = 0; i < clv_binding_count; i++)
        if (!strcasecmp(clv_bindings[i].name, name))
            return &clv_bindings[i];
    return NULL;
}

void clv_keys_help(char *out, size_t size)
{
    size_t n = (size_t)snprintf(out, size, "Keys\n");
    for (int i = 0; i < clv_binding_count && n < size; i++) {
        const clv_binding *b = &clv_bindings[i];
        if (b->action == CLV_ACT_PRESET) {
            const clv_preset *p = &clv_presets[b->arg - 1];
            n += (size_t)snprintf(out + n, size - n, "  %-12s preset: %s%s%s%s\n", b->name,
                                  p->chain[0] ? p->chain : "no filter",
                                  p->param ? " (up/down: " : "", p->param ? p->param : "",
                                  p->param ? ")" : "");
        } else {
            n += (size_t)snprintf(out + n, size - n, "  %-12s %s\n", b->name, b->help);
        }
    }
}
