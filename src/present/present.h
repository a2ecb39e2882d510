/* present.h - the live window's parts: the SDL2 + OpenGL window with its
 * shaders and HUD, its events (keys by name), the sound output. Links SDL2,
 * SDL2_ttf, fontconfig and GL; no FFmpeg, no OpenCL calls. */
#ifndef CLVID_PRESENT_H
#define CLVID_PRESENT_H

#include <stdint.h>

#include "clvid.h"

/* ---- Window ------------------------------------------------------------ */

typedef struct clv_window clv_window;

typedef struct clv_window_options {
    const char *title;
    int width, height; /* initial size in window points; 0: the picture's size, fitted to the
                          screen */
    int fullscreen;
    int vsync; /* 1: swaps wait for the display's refresh */
} clv_window_options;

/* Opens the window for pictures of src_w x src_h pixels shown at aspect
 * (display width / height). CLV_EIO with msg when there is no display or
 * no OpenGL 3.3 context; the message says how to work without one. */
int clv_window_open(const clv_window_options *options, int src_w, int src_h, double aspect,
                    clv_window **out, clv_msg *msg);
void clv_window_close(clv_window *win);

/* The frame to show (rows of width * 4 bytes): filtered (RGBA, w x h, shown at the display aspect
 * `aspect`, which may differ from frame to frame when a chain changes the
 * size) and, for the compare view, original (RGBA of the size the window
 * was opened with, fitted into the same box; NULL: none). */
void clv_window_set_frame(clv_window *win, const uint8_t *filtered, int w, int h, double aspect,
                          const uint8_t *original);
/* The size of the filtered frame shown (clv_window_frame_pixels's). */
void clv_window_frame_size(const clv_window *win, int *w, int *h);

/* Reads the filtered frame last set back into out (clv_window_frame_size's
 * width * height * 4 bytes). */
void clv_window_frame_pixels(clv_window *win, uint8_t *out);

typedef struct clv_view {
    int compare;         /* split view: original left of the divider */
    double divider;      /* 0..1 of the picture's width */
    const char *hud;     /* overlay text (lines), NULL for none */
    const char *help;    /* centred help text, NULL for none */
    const char *message; /* a short notice at the bottom, NULL for none */
    const char *error;   /* lines on a red panel above the notice (a kernel that does
                            not build), NULL for none */
} clv_view;

/* Draws the picture and the overlays and shows them. With capture not
 * NULL, also reads the drawn window back into *capture (RGBA8, rows
 * *cap_w * 4 bytes, top row first; the caller frees it). */
int clv_window_draw(clv_window *win, const clv_view *view, uint8_t **capture, int *cap_w,
                    int *cap_h);
void clv_window_toggle_fullscreen(clv_window *win);
int clv_window_fullscreen(const clv_window *win);
/* Where the picture is, in window points (mouse coordinates). */
void clv_window_picture_rect(const clv_window *win, double *x, double *y, double *w, double *h);
/* "llvmpipe (LLVM 15.0.6, 256 bits)", for the HUD. */
const char *clv_window_renderer(const clv_window *win);

/* ---- Sound ------------------------------------------------------------- */

typedef struct clv_sound clv_sound;

/* Opens the default audio output for interleaved float samples. */
int clv_sound_open(int rate, int channels, clv_sound **out, clv_msg *msg);
void clv_sound_close(clv_sound *snd);
int clv_sound_rate(const clv_sound *snd);
int clv_sound_channels(const clv_sound *snd);
/* Appends `frames` sample frames whose first one plays at media time pts
 * (seconds). Returns CLV_ELIMIT, taking nothing, when the buffer is full. */
int clv_sound_write(clv_sound *snd, const float *samples, int frames, double pts);
/* Seconds of sound written and not yet played. */
double clv_sound_buffered(const clv_sound *snd);
/* The media time being heard now; < 0 when nothing is playing (never
 * started, cleared, or run dry). */
double clv_sound_clock(const clv_sound *snd);
void clv_sound_pause(clv_sound *snd, int paused);
/* Drops everything buffered (seek, step). */
void clv_sound_clear(clv_sound *snd);
/* volume 0..2 (1: as decoded); takes effect at once. */
void clv_sound_set_volume(clv_sound *snd, double volume, int muted);

/* ---- Events ------------------------------------------------------------ */

enum clv_window_event_type {
    CLV_EVENT_QUIT,       /* the window was closed */
    CLV_EVENT_REDRAW,     /* resized, exposed, moved between displays */
    CLV_EVENT_KEY,        /* a key went down: `key` names it */
    CLV_EVENT_MOUSE_DOWN, /* the left button; x in window points */
    CLV_EVENT_MOUSE_UP,
    CLV_EVENT_MOUSE_MOVE,
};

typedef struct clv_window_event {
    enum clv_window_event_type type;
    /* The key as --keys and the help write it: "w", "2", "space", "left",
     * "esc", "."; with shift held, "shift+" before it. */
    char key[32];
    double x;
} clv_window_event;

/* Takes the next pending event of the window (and the process's: SDL's
 * quit). Returns 1 with *event filled, 0 when none is pending. */
int clv_window_poll(clv_window *win, clv_window_event *event);
/* Sleeps ms milliseconds (the window's event loop idles with it). */
void clv_window_sleep(double ms);

#endif
