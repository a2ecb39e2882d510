/* input.c - what reaches the player from outside: the window's events
 * (keys to their actions through the binding table, the compare divider
 * dragged) and the --keys list replayed. No SDL here: src/present names
 * the keys. */
#include "player_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The next key of --keys, or NULL when none is left. */
const clv_binding *clv_player_replay_next(clv_player *p)
{
    const char *s = p->keys_next;
    if (!s)
        return NULL;
    s += strspn(s, " ,");
    size_t n = strcspn(s, " ,");
    if (n == 0) {
        p->keys_next = NULL;
        return NULL;
    }
    char name[32];
    snprintf(name, sizeof name, "%.*s", (int)(n < 31 ? n : 31), s);
    p->keys_next = s + n;
    return clv_binding_named(name);
}

int clv_player_events(clv_player *p, clv_msg *msg)
{
    clv_window_event e;
    int err = 0;
    while (!err && clv_window_poll(p->win, &e)) {
        switch (e.type) {
        case CLV_EVENT_QUIT:
            p->quit = 1;
            break;
        case CLV_EVENT_REDRAW:
            p->redraw = 1;
            break;
        case CLV_EVENT_KEY: {
            const clv_binding *b = clv_binding_named(e.key);
            if (b)
                err = clv_player_act(p, b, msg);
            break;
        }
        case CLV_EVENT_MOUSE_DOWN:
        case CLV_EVENT_MOUSE_MOVE:
        case CLV_EVENT_MOUSE_UP:
            if (e.type == CLV_EVENT_MOUSE_DOWN && p->compare)
                p->dragging = 1;
            if (e.type == CLV_EVENT_MOUSE_UP)
                p->dragging = 0;
            if (p->dragging) {
                double x, y, w, h;
                clv_window_picture_rect(p->win, &x, &y, &w, &h);
                p->divider = fmin(1, fmax(0, (e.x - x) / (w > 0 ? w : 1)));
                p->redraw = 1;
            }
            break;
        }
    }
    return err;
}
