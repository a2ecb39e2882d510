/* window.c - the live window: SDL2 with an OpenGL 3.3 context, the picture
 * drawn by shaders/present.frag (letterboxed, optionally split against the
 * original), and the HUD and help overlays as text rendered by SDL_ttf
 * with a system font found through fontconfig. */
#define GL_GLEXT_PROTOTYPES 1
#include "present.h"

#include <SDL.h>
#include <SDL_opengl.h>
#include <SDL_ttf.h>
#include <errno.h>
#include <fontconfig/fontconfig.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shaders.h"

/* A texture holding rendered text, re-rendered only when the text changes. */
typedef struct text_layer {
    GLuint texture;
    char *text;
    int w, h; /* pixels */
    int wrap; /* the width lines were wrapped at, 0: none */
} text_layer;

struct clv_window {
    SDL_Window *window;
    SDL_GLContext gl;
    int src_w, src_h; /* the filtered frame's size */
    double aspect;    /* its display aspect: the picture's box */
    int orig_w, orig_h;
    double orig_aspect; /* the original's (the compare view fits it into the box) */
    GLuint vao, vbo;
    GLuint present, compare, hud; /* programs */
    GLuint filtered, original;
    int have_original;
    TTF_Font *font;
    int font_px;
    int fontconfig; /* FcInit was called (find_font) */
    text_layer hud_text, help_text, message_text, error_text;
    char renderer[160];
};

/* The text of shaders/<name>: from CLVID_SHADER_DIR when set (for shader
 * work without rebuilding), else the embedded copy. The caller frees. */
static char *shader_text(const char *name, clv_msg *msg)
{
    const char *dir = getenv("CLVID_SHADER_DIR");
    if (dir && *dir) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, name);
        FILE *f = fopen(path, "rb");
        if (!f) {
            snprintf(msg->text, sizeof msg->text, "CLVID_SHADER_DIR: cannot open %.900s: %s", path,
                     strerror(errno));
            return NULL;
        }
        fseek(f, 0, SEEK_END);
        long size = ftell(f);
        fseek(f, 0, SEEK_SET);
        char *text = malloc(size > 0 ? (size_t)size + 1 : 1);
        size_t n = text && size > 0 ? fread(text, 1, (size_t)size, f) : 0;
        fclose(f);
        if (text)
            text[n] = 0;
        return text;
    }
    for (int i = 0; i < clv__shader_source_count; i++)
        if (!strcmp(clv__shader_sources[i].name, name)) {
            char *text = malloc(clv__shader_sources[i].length + 1);
            if (text)
                memcpy(text, clv__shader_sources[i].text, clv__shader_sources[i].length + 1);
            return text;
        }
    snprintf(msg->text, sizeof msg->text, "shader %s is not built in", name);
    return NULL;
}

static GLuint compile(GLenum type, const char *name, clv_msg *msg)
{
    char *text = shader_text(name, msg);
    if (!text)
        return 0;
    GLuint sh = glCreateShader(type);
    const char *src = text;
    glShaderSource(sh, 1, &src, NULL);
    glCompileShader(sh);
    free(text);
    GLint ok = 0;
    glGetShaderiv(sh, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        char log[800] = "";
        glGetShaderInfoLog(sh, sizeof log, NULL, log);
        snprintf(msg->text, sizeof msg->text, "shaders/%s does not compile: %s", name, log);
        glDeleteShader(sh);
        return 0;
    }
    return sh;
}

static GLuint program(const char *vert, const char *frag, clv_msg *msg)
{
    GLuint vs = compile(GL_VERTEX_SHADER, vert, msg);
    GLuint fs = vs ? compile(GL_FRAGMENT_SHADER, frag, msg) : 0;
    if (!fs) {
        glDeleteShader(vs);
        return 0;
    }
    GLuint p = glCreateProgram();
    glAttachShader(p, vs);
    glAttachShader(p, fs);
    glLinkProgram(p);
    glDeleteShader(vs);
    glDeleteShader(fs);
    GLint ok = 0;
    glGetProgramiv(p, GL_LINK_STATUS, &ok);
    if (!ok) {
        char log[800] = "";
        glGetProgramInfoLog(p, sizeof log, NULL, log);
        snprintf(msg->text, sizeof msg->text, "shaders %s + %s do not link: %s", vert, frag, log);
        glDeleteProgram(p);
        return 0;
    }
    return p;
}

static GLuint make_texture(int w, int h)
{
    GLuint t;
    glGenTextures(1, &t);
    glBindTexture(GL_TEXTURE_2D, t);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    if (w > 0 && h > 0)
        glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, w, h, 0, GL_RGBA, GL_UNSIGNED_BYTE, NULL);
    return t;
}

/* The monospace font fontconfig picks, as a file path; the caller frees. */
static char *find_font(void)
{
    char *path = NULL;
    if (!FcInit())
        return NULL;
    FcPattern *pat = FcNameParse((const FcChar8 *)"monospace:style=Regular");
    if (pat) {
        FcConfigSubstitute(NULL, pat, FcMatchPattern);
        FcDefaultSubstitute(pat);
        FcResult res;
        FcPattern *match = FcFontMatch(NULL, pat, &res);
        FcChar8 *file = NULL;
        if (match && FcPatternGetString(match, FC_FILE, 0, &file) == FcResultMatch)
            path = strdup((const char *)file);
        if (match)
            FcPatternDestroy(match);
        FcPatternDestroy(pat);
    }
    return path;
}

static void drawable(const clv_window *win, int *w, int *h)
{
    SDL_GL_GetDrawableSize(win->window, w, h);
}

/* Drawable pixels per window point (2 on a HiDPI display). */
static double pixel_scale(const clv_window *win)
{
    int ww, wh, dw, dh;
    SDL_GetWindowSize(win->window, &ww, &wh);
    drawable(win, &dw, &dh);
    return ww > 0 ? (double)dw / ww : 1.0;
}

int clv_window_open(const clv_window_options *o, int src_w, int src_h, double aspect,
                    clv_window **out, clv_msg *msg)
{
    *out = NULL;
    if (SDL_InitSubSystem(SDL_INIT_VIDEO) != 0) {
        snprintf(msg->text, sizeof msg->text,
                 "no display to open a window on (SDL: %s); run it where a display is "
                 "available (or under Xvfb), or filter to a file instead: clvid transcode -i "
                 "INPUT -vf CHAIN -o OUTPUT",
                 SDL_GetError());
        return CLV_EIO;
    }
    /* SDL falls back to drivers that show nothing; unless asked for by
     * name (SDL_VIDEODRIVER), they mean there is no display. */
    const char *driver = SDL_GetCurrentVideoDriver();
    if (!getenv("SDL_VIDEODRIVER") && driver &&
        (!strcmp(driver, "offscreen") || !strcmp(driver, "dummy") || !strcmp(driver, "evdev"))) {
        const char *x = getenv("DISPLAY"), *wl = getenv("WAYLAND_DISPLAY");
        if ((x && *x) || (wl && *wl))
            snprintf(msg->text, sizeof msg->text,
                     "cannot open the display %s%s%s%s (SDL fell back to its '%s' driver); run it "
                     "where that display takes clients, or filter to a file instead: clvid "
                     "transcode -i INPUT -vf CHAIN -o OUTPUT",
                     x && *x ? "DISPLAY=" : "", x && *x ? x : "",
                     (x && *x) && (wl && *wl) ? ", WAYLAND_DISPLAY="
                     : wl && *wl              ? "WAYLAND_DISPLAY="
                                              : "",
                     wl && *wl ? wl : "", driver);
        else
            snprintf(msg->text, sizeof msg->text,
                     "no display to open a window on (DISPLAY and WAYLAND_DISPLAY are not set); "
                     "run it on a desktop (or under Xvfb), or filter to a file instead: clvid "
                     "transcode -i INPUT -vf CHAIN -o OUTPUT");
        SDL_QuitSubSystem(SDL_INIT_VIDEO);
        return CLV_EIO;
    }
    clv_window *win = calloc(1, sizeof *win);
    if (!win)
        return snprintf(msg->text, sizeof msg->text, "out of memory"), CLV_ENOMEM;
    win->src_w = win->orig_w = src_w;
    win->src_h = win->orig_h = src_h;
    win->aspect = win->orig_aspect = aspect > 0 ? aspect : (double)src_w / src_h;

    int w = o->width, h = o->height;
    if (w <= 0 || h <= 0) {
        /* The picture's display size, shrunk to fit 90% of the screen. */
        w = (int)(src_h * win->aspect + 0.5);
        h = src_h;
        SDL_Rect usable;
        if (SDL_GetDisplayUsableBounds(0, &usable) == 0) {
            double k = 1.0;
            if (w > usable.w * 0.9)
                k = usable.w * 0.9 / w;
            if (h * k > usable.h * 0.9)
                k = usable.h * 0.9 / h;
            w = (int)(w * k);
            h = (int)(h * k);
        }
        w = w < 160 ? 160 : w;
        h = h < 90 ? 90 : h;
    }
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_MAJOR_VERSION, 3);
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_MINOR_VERSION, 3);
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_PROFILE_MASK, SDL_GL_CONTEXT_PROFILE_CORE);
    SDL_GL_SetAttribute(SDL_GL_DOUBLEBUFFER, 1);
    Uint32 flags = SDL_WINDOW_OPENGL | SDL_WINDOW_RESIZABLE | SDL_WINDOW_ALLOW_HIGHDPI |
                   (o->fullscreen ? SDL_WINDOW_FULLSCREEN_DESKTOP : 0);
    win->window = SDL_CreateWindow(o->title ? o->title : "clvid", SDL_WINDOWPOS_CENTERED,
                                   SDL_WINDOWPOS_CENTERED, w, h, flags);
    if (!win->window) {
        snprintf(msg->text, sizeof msg->text, "cannot open a window: %s", SDL_GetError());
        goto fail;
    }
    win->gl = SDL_GL_CreateContext(win->window);
    if (!win->gl) {
        snprintf(msg->text, sizeof msg->text,
                 "cannot get an OpenGL 3.3 context (%s); update the graphics driver, or use "
                 "clvid transcode",
                 SDL_GetError());
        goto fail;
    }
    SDL_GL_SetSwapInterval(o->vsync ? 1 : 0);
    snprintf(win->renderer, sizeof win->renderer, "%s", (const char *)glGetString(GL_RENDERER));

    if (!(win->present = program("quad.vert", "present.frag", msg)) ||
        !(win->compare = program("quad.vert", "compare.frag", msg)) ||
        !(win->hud = program("quad.vert", "hud.frag", msg)))
        goto fail;
    glGenVertexArrays(1, &win->vao);
    glGenBuffers(1, &win->vbo);
    glBindVertexArray(win->vao);
    glBindBuffer(GL_ARRAY_BUFFER, win->vbo);
    glBufferData(GL_ARRAY_BUFFER, 16 * sizeof(float), NULL, GL_DYNAMIC_DRAW);
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 4 * sizeof(float), (void *)0);
    glEnableVertexAttribArray(1);
    glVertexAttribPointer(1, 2, GL_FLOAT, GL_FALSE, 4 * sizeof(float), (void *)(2 * sizeof(float)));
    win->filtered = make_texture(src_w, src_h);
    win->original = make_texture(src_w, src_h);
    win->hud_text.texture = make_texture(0, 0);
    win->help_text.texture = make_texture(0, 0);
    win->message_text.texture = make_texture(0, 0);
    win->error_text.texture = make_texture(0, 0);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);

    if (TTF_Init() != 0) {
        snprintf(msg->text, sizeof msg->text, "SDL_ttf: %s", TTF_GetError());
        goto fail;
    }
    char *font = find_font();
    win->fontconfig = 1;
    if (!font) {
        snprintf(msg->text, sizeof msg->text,
                 "no monospace font found through fontconfig; install one (apt-get install "
                 "fonts-dejavu-core)");
        goto fail;
    }
    win->font_px = (int)(14 * pixel_scale(win) + 0.5);
    win->font = TTF_OpenFont(font, win->font_px);
    if (!win->font) {
        snprintf(msg->text, sizeof msg->text, "cannot open the font %.800s: %s", font,
                 TTF_GetError());
        free(font);
        goto fail;
    }
    free(font);
    *out = win;
    return 0;
fail:
    clv_window_close(win);
    return CLV_EIO;
}

void clv_window_close(clv_window *win)
{
    if (!win)
        return;
    if (win->font)
        TTF_CloseFont(win->font);
    if (TTF_WasInit())
        TTF_Quit();
    if (win->fontconfig)
        FcFini(); /* find_font's FcInit */
    free(win->hud_text.text);
    free(win->help_text.text);
    free(win->message_text.text);
    free(win->error_text.text);
    if (win->gl)
        SDL_GL_DeleteContext(win->gl);
    if (win->window)
        SDL_DestroyWindow(win->window);
    free(win);
    SDL_QuitSubSystem(SDL_INIT_VIDEO);
}

void clv_window_set_frame(clv_window *win, const uint8_t *filtered, int w, int h, double aspect,
                          const uint8_t *original)
{
    glBindTexture(GL_TEXTURE_2D, win->filtered);
    if (w != win->src_w || h != win->src_h) { /* a chain changed the size */
        glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, w, h, 0, GL_RGBA, GL_UNSIGNED_BYTE, filtered);
        win->src_w = w;
        win->src_h = h;
    } else {
        glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, filtered);
    }
    win->aspect = aspect > 0 ? aspect : (double)w / h;
    if (original) {
        glBindTexture(GL_TEXTURE_2D, win->original);
        glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, win->orig_w, win->orig_h, GL_RGBA, GL_UNSIGNED_BYTE,
                        original);
        win->have_original = 1;
    }
}

void clv_window_frame_size(const clv_window *win, int *w, int *h)
{
    *w = win->src_w;
    *h = win->src_h;
}

/* The letterboxed picture in drawable pixels, whole pixels so that a
 * window of the source's size shows it 1:1. */
static void picture_px(const clv_window *win, int *x, int *y, int *w, int *h)
{
    int dw, dh;
    drawable(win, &dw, &dh);
    double k = dw / win->aspect <= dh ? (double)dw / win->aspect : dh;
    *w = (int)(k * win->aspect + 0.5);
    *h = (int)(k + 0.5);
    *w = *w > dw ? dw : *w;
    *h = *h > dh ? dh : *h;
    *x = (dw - *w) / 2;
    *y = (dh - *h) / 2;
}

void clv_window_picture_rect(const clv_window *win, double *x, double *y, double *w, double *h)
{
    int px, py, pw, ph;
    picture_px(win, &px, &py, &pw, &ph);
    double s = pixel_scale(win);
    *x = px / s;
    *y = py / s;
    *w = pw / s;
    *h = ph / s;
}

static void quad(const clv_window *win, double x, double y, double w, double h)
{
    float v[16] = {(float)x, (float)y,       0, 0, (float)(x + w), (float)y,       1, 0,
                   (float)x, (float)(y + h), 0, 1, (float)(x + w), (float)(y + h), 1, 1};
    glBindBuffer(GL_ARRAY_BUFFER, win->vbo);
    glBufferSubData(GL_ARRAY_BUFFER, 0, sizeof v, v);
    glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
}

/* Renders text (lines) into the layer's texture when it changed. */
static void layer_wrapped(clv_window *win, text_layer *layer, const char *text, int wrap);

static void layer_update(clv_window *win, text_layer *layer, const char *text)
{
    layer_wrapped(win, layer, text, 0);
}

/* The same with lines wrapped at `wrap` pixels (0: at newlines only). */
static void layer_wrapped(clv_window *win, text_layer *layer, const char *text, int wrap)
{
    if (layer->text && !strcmp(layer->text, text) && layer->wrap == wrap)
        return;
    layer->wrap = wrap;
    free(layer->text);
    layer->text = strdup(text);
    SDL_Color white = {255, 255, 255, 255};
    SDL_Surface *s = TTF_RenderUTF8_Blended_Wrapped(win->font, text, white, (Uint32)wrap);
    SDL_Surface *rgba = s ? SDL_ConvertSurfaceFormat(s, SDL_PIXELFORMAT_RGBA32, 0) : NULL;
    if (s)
        SDL_FreeSurface(s);
    if (!rgba) {
        layer->w = layer->h = 0;
        return;
    }
    glBindTexture(GL_TEXTURE_2D, layer->texture);
    glPixelStorei(GL_UNPACK_ROW_LENGTH, rgba->pitch / 4);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, rgba->w, rgba->h, 0, GL_RGBA, GL_UNSIGNED_BYTE,
                 rgba->pixels);
    glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
    layer->w = rgba->w;
    layer->h = rgba->h;
    SDL_FreeSurface(rgba);
}

/* A translucent panel (dark, or red for errors) with the layer's text on
 * it, at (x, y) pixels. */
static void draw_panel(clv_window *win, const text_layer *layer, double x, double y, int red)
{
    if (layer->w == 0)
        return;
    double pad = win->font_px * 0.5;
    glUseProgram(win->hud);
    glUniform1i(glGetUniformLocation(win->hud, "panel"), 1);
    if (red)
        glUniform4f(glGetUniformLocation(win->hud, "tint"), 0.55f, 0.0f, 0.0f, 0.85f);
    else
        glUniform4f(glGetUniformLocation(win->hud, "tint"), 0.0f, 0.0f, 0.0f, 0.62f);
    quad(win, x - pad, y - pad, layer->w + 2 * pad, layer->h + 2 * pad);
    glUniform1i(glGetUniformLocation(win->hud, "panel"), 0);
    glUniform4f(glGetUniformLocation(win->hud, "tint"), 1.0f, 1.0f, 0.85f, 1.0f);
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, layer->texture);
    glUniform1i(glGetUniformLocation(win->hud, "text"), 0);
    quad(win, x, y, layer->w, layer->h);
}

static void draw_layer(clv_window *win, const text_layer *layer, double x, double y)
{
    draw_panel(win, layer, x, y, 0);
}

int clv_window_draw(clv_window *win, const clv_view *view, uint8_t **capture, int *cap_w,
                    int *cap_h)
{
    int dw, dh, px, py, pw, ph;
    drawable(win, &dw, &dh);
    picture_px(win, &px, &py, &pw, &ph);
    glViewport(0, 0, dw, dh);
    glClearColor(0, 0, 0, 1);
    glClear(GL_COLOR_BUFFER_BIT);
    glBindVertexArray(win->vao);

    glDisable(GL_BLEND);
    int compare = view->compare && win->have_original;
    GLuint prog = compare ? win->compare : win->present;
    glUseProgram(prog);
    glUniform2f(glGetUniformLocation(prog, "window_size"), (float)dw, (float)dh);
    /* Shown 1:1, texels map to pixels exactly: nearest is exact and cheaper. */
    GLint filter = pw == win->src_w && ph == win->src_h ? GL_NEAREST : GL_LINEAR;
    GLint orig_filter = pw == win->orig_w && ph == win->orig_h ? GL_NEAREST : GL_LINEAR;
    glActiveTexture(GL_TEXTURE1);
    glBindTexture(GL_TEXTURE_2D, win->original);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, orig_filter);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, orig_filter);
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, win->filtered);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, filter);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, filter);
    glUniform1i(glGetUniformLocation(prog, "filtered"), 0);
    if (compare) {
        glUniform1i(glGetUniformLocation(prog, "original"), 1);
        glUniform1f(glGetUniformLocation(prog, "divider"), (float)view->divider);
        glUniform1f(glGetUniformLocation(prog, "divider_px"),
                    (float)(pixel_scale(win) / (pw > 0 ? pw : 1)));
        /* The original fitted into the filtered picture's box, centred:
         * its texture coordinates scaled about the middle. */
        double k = win->orig_aspect / win->aspect;
        glUniform2f(glGetUniformLocation(prog, "orig_scale"), k >= 1 ? 1.0f : (float)(1 / k),
                    k >= 1 ? (float)k : 1.0f);
    }
    quad(win, px, py, pw, ph);

    glEnable(GL_BLEND);
    glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
    glUseProgram(win->hud);
    glUniform2f(glGetUniformLocation(win->hud, "window_size"), (float)dw, (float)dh);
    double margin = win->font_px;
    if (view->hud) {
        layer_update(win, &win->hud_text, view->hud);
        draw_layer(win, &win->hud_text, margin, margin);
    }
    double bottom = dh - margin;
    if (view->message) {
        layer_update(win, &win->message_text, view->message);
        draw_layer(win, &win->message_text, margin, bottom - win->message_text.h);
        bottom -= win->message_text.h + margin * 1.5;
    }
    if (view->error) {
        layer_wrapped(win, &win->error_text, view->error, (int)(dw - 3 * margin));
        draw_panel(win, &win->error_text, margin, bottom - win->error_text.h, 1);
    }
    if (view->help) {
        layer_update(win, &win->help_text, view->help);
        draw_layer(win, &win->help_text, (dw - win->help_text.w) / 2.0,
                   (dh - win->help_text.h) / 2.0);
    }
    glDisable(GL_BLEND);

    if (capture) {
        uint8_t *pixels = malloc((size_t)dw * (size_t)dh * 4);
        if (!pixels)
            return CLV_ENOMEM;
        glReadBuffer(GL_BACK);
        glReadPixels(0, 0, dw, dh, GL_RGBA, GL_UNSIGNED_BYTE, pixels);
        /* GL's rows run bottom up. */
        size_t row = (size_t)dw * 4;
        uint8_t *tmp = malloc(row);
        for (int y = 0; tmp && y < dh / 2; y++) {
            memcpy(tmp, pixels + row * (size_t)y, row);
            memcpy(pixels + row * (size_t)y, pixels + row * (size_t)(dh - 1 - y), row);
            memcpy(pixels + row * (size_t)(dh - 1 - y), tmp, row);
        }
        free(tmp);
        *capture = pixels;
        *cap_w = dw;
        *cap_h = dh;
    }
    SDL_GL_SwapWindow(win->window);
    return 0;
}

void clv_window_frame_pixels(clv_window *win, uint8_t *out)
{
    glBindTexture(GL_TEXTURE_2D, win->filtered);
    glGetTexImage(GL_TEXTURE_2D, 0, GL_RGBA, GL_UNSIGNED_BYTE, out);
}

void clv_window_toggle_fullscreen(clv_window *win)
{
    SDL_SetWindowFullscreen(win->window,
                            clv_window_fullscreen(win) ? 0 : SDL_WINDOW_FULLSCREEN_DESKTOP);
}

int clv_window_fullscreen(const clv_window *win)
{
    return (SDL_GetWindowFlags(win->window) & SDL_WINDOW_FULLSCREEN) != 0;
}

const char *clv_window_renderer(const clv_window *win)
{
    return win->renderer;
}

/* The names --keys and the help use: SDL's key names in lower case, with
 * Escape shortened. Named from the keycode and the shift modifier, never
 * from the text typed: shift+1 is "shift+1" whatever the layout makes of
 * it ('!', '"', ...). The digit row goes by its place (the scancode), so
 * that 1-9 and shift+1..9 pick the presets on every layout: AZERTY's
 * unshifted top row is & é " ' ( - è _ ç à. */
static void key_name(const SDL_KeyboardEvent *k, char *out, size_t size)
{
    char name[24];
    const SDL_Scancode sc = k->keysym.scancode;
    if (sc >= SDL_SCANCODE_1 && sc <= SDL_SCANCODE_0)
        snprintf(name, sizeof name, "%d", sc == SDL_SCANCODE_0 ? 0 : sc - SDL_SCANCODE_1 + 1);
    else
        snprintf(name, sizeof name, "%.23s", SDL_GetKeyName(k->keysym.sym));
    for (char *c = name; *c; c++)
        *c = (char)(*c >= 'A' && *c <= 'Z' ? *c - 'A' + 'a' : *c);
    snprintf(out, size, "%s%s", (k->keysym.mod & KMOD_SHIFT) ? "shift+" : "",
             !strcmp(name, "escape") ? "esc" : name);
}

int clv_window_poll(clv_window *win, clv_window_event *ev)
{
    (void)win;
    SDL_Event e;
    while (SDL_PollEvent(&e)) {
        memset(ev, 0, sizeof *ev);
        switch (e.type) {
        case SDL_QUIT:
            ev->type = CLV_EVENT_QUIT;
            return 1;
        case SDL_WINDOWEVENT:
            ev->type = CLV_EVENT_REDRAW;
            return 1;
        case SDL_KEYDOWN:
            ev->type = CLV_EVENT_KEY;
            key_name(&e.key, ev->key, sizeof ev->key);
            return 1;
        case SDL_MOUSEBUTTONDOWN:
        case SDL_MOUSEBUTTONUP:
            if (e.button.button != SDL_BUTTON_LEFT)
                break;
            ev->type = e.type == SDL_MOUSEBUTTONDOWN ? CLV_EVENT_MOUSE_DOWN : CLV_EVENT_MOUSE_UP;
            ev->x = e.button.x;
            return 1;
        case SDL_MOUSEMOTION:
            ev->type = CLV_EVENT_MOUSE_MOVE;
            ev->x = e.motion.x;
            return 1;
        default:
            break;
        }
    }
    return 0;
}

void clv_window_sleep(double ms)
{
    SDL_Delay(ms > 0 ? (Uint32)ms : 0);
}
