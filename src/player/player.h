/* player.h - the player behind `clvid play` and `clvid webcam`: its state
 * and what it does, apart from SDL. Keys are named ("space", "shift+left");
 * each is bound to one clv_action in a const table; actions change the
 * player's state, the chain or the GPU stage; the HUD's text is built from
 * the state. src/present draws the window and delivers its events. */
#ifndef CLVID_PLAYER_H
#define CLVID_PLAYER_H

#include <signal.h>
#include <stddef.h>

#include "clvid/pipeline.h"

/* ---- Actions and the keys bound to them ------------------------------ */

typedef enum clv_action {
    CLV_ACT_PRESET, /* arg: preset number 1..CLV_PRESET_COUNT */
    CLV_ACT_CYCLE,  /* the next -vf chain, or graph (-filter_complex) */
    CLV_ACT_PARAM,  /* arg: +1 / -1 step of the active filter's main parameter */
    CLV_ACT_PAUSE,
    CLV_ACT_STEP,
    CLV_ACT_SEEK, /* arg: seconds */
    CLV_ACT_COMPARE,
    CLV_ACT_FULLSCREEN,
    CLV_ACT_SCREENSHOT,
    CLV_ACT_HUD,
    CLV_ACT_HELP,
    CLV_ACT_MUTE,
    CLV_ACT_VOLUME,     /* arg: +1 / -1 step */
    CLV_ACT_NEXT_PARAM, /* up/down move the next parameter of the -vf chain */
    CLV_ACT_RELOAD,     /* build the chains' kernel files again */
    CLV_ACT_TONEMAP,    /* HDR sources: tone-mapped for the display or shown as they are */
    CLV_ACT_QUIT,
} clv_action;

typedef struct clv_binding {
    const char *key; /* as the window names it and --keys writes it: "2", "space", "shift+left" */
    clv_action action;
    int arg;
    const char *help;
} clv_binding;

/* The key table, const data; the help text is generated from it. */
extern const clv_binding clv_bindings[];
extern const int clv_binding_count;

/* The binding of a key name, any case; "shift+KEY" with no binding of its
 * own acts as KEY. NULL when the key is not bound. */
const clv_binding *clv_binding_named(const char *key);
/* The help screen's text, generated from the table and the presets. */
void clv_keys_help(char *out, size_t size);

/* The window presets (const data): keys 1-9 pick the first bank, shift+1..9
 * the second. Each is a chain, and which filter of it the up/down keys move
 * (its parameter `param`, by the parameter's own step from the filter's
 * descriptor). */
typedef struct clv_preset {
    const char *name;
    const char *chain;
    int filter;        /* index in the chain, -1: none */
    const char *param; /* the parameter's name */
} clv_preset;

#define CLV_PRESET_BANK 9                      /* presets a bank: keys 1-9 */
#define CLV_PRESET_COUNT (2 * CLV_PRESET_BANK) /* 1-9, then shift+1..9 */

/* Preset n (1..CLV_PRESET_COUNT) is clv_presets[n - 1]; the second bank
 * starts at n = CLV_PRESET_BANK + 1. */
extern const clv_preset clv_presets[CLV_PRESET_COUNT];

/* The key bound to preset n ("3", "shift+3"); "" when none is. */
const char *clv_preset_key(int n);

/* ---- The player ------------------------------------------------------ */

#define CLV_PLAYER_CHAINS 16

typedef struct clv_player_options {
    /* The input (input, input_format, start_us, capture options, live), the
     * engine's settings, and the recording of the frames shown (output with
     * the encoder options, overwrite, mic; output NULL: none). */
    clv_transcode_options io;
    const char *chains[CLV_PLAYER_CHAINS]; /* -vf, in order; `w` cycles through them */
    int chain_count;
    /* -filter_complex over io.input and io.more_inputs, in order (io.map
     * picks their output): the window shows the graph's output; `w`
     * cycles the graphs; the one -vf chain (or preset) is applied after
     * the graph, the "main chain" the keys switch. */
    const char *graphs[CLV_PLAYER_CHAINS];
    const char *graph_files[CLV_PLAYER_CHAINS]; /* -filter_complex_script's file, or NULL */
    int graph_count;
    int width, height; /* the window's, in points; 0: the video's, fitted */
    int fullscreen, untimed, loop, autoexit, no_audio, no_hud;
    int64_t exit_after;     /* quit after showing this many frames; 0: no */
    const char *screenshot; /* at exit, the window as a PNG */
    const char *keys;       /* key names replayed, one per frame shown */
    const char *stats;      /* at exit, the state as key=value lines */
    const char *shader_dir; /* GLSL from disk (development), NULL: embedded */
    double volume;          /* 0..2 */
    int prefer_mjpeg;       /* a camera: ask for MJPEG first */
} clv_player_options;

/* Checks a --keys list: 0, or CLV_EOPTION with msg naming the unknown key. */
int clv_player_check_keys(const char *keys, clv_msg *msg);

/* Plays until the input ends (with autoexit, or a live source), q, the
 * window's close, or *quit becoming non-zero (a signal handler may set it;
 * may be NULL); a recording is finished in every case. Returns 0 or a
 * CLV_E* code with msg; usage mistakes (a bad chain, -o on a file) are
 * CLV_EPARSE, CLV_ERANGE or CLV_EOPTION, found before a window opens. */
int clv_player_run(const clv_player_options *options, const volatile sig_atomic_t *quit,
                   clv_msg *msg);

#endif
