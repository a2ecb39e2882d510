/* ipc.h - the control socket behind --ipc PATH (mpv's JSON IPC shape): a
 * Unix socket whose clients send one JSON object a line,
 * {"command": ["set_chain", "median"], "request_id": 7}, and get one reply
 * a line, {"error": "success", "data": ..., "request_id": 7}, plus events
 * pushed to every client ({"event": "chain-changed", ...}).
 *
 * The server is a transport with a command table: its thread accepts
 * clients, reads and checks their lines (JSON, the command's name, its
 * arguments) and answers the malformed ones itself; a well-formed command
 * is queued for the run (the transcode's pump, the player's loop), which
 * takes it between frames with clv_ipc_next and answers it with
 * clv_ipc_reply once applied. The run never blocks on a client: replies and
 * events go into each client's buffer, written by the server's thread. It
 * lives in src/pipeline, below the player and beside the transcode that
 * pull commands from it; it calls neither. */
#ifndef CLVID_PIPELINE_IPC_H
#define CLVID_PIPELINE_IPC_H

#include <stddef.h>
#include <stdint.h>

#include "clvid/clvid.h"

/* The longest line a client may send, newline excluded: a longer one is
 * answered with an error and thrown away up to its newline. */
#define CLV_IPC_LINE_MAX 65536
/* Clients connected at once; one more is told so and closed. */
#define CLV_IPC_CLIENTS 16

typedef struct clv_ipc clv_ipc;

typedef enum clv_ipc_verb {
    CLV_IPC_SET_CHAIN,  /* arg[0]: the chain's text */
    CLV_IPC_SET_PARAM,  /* index: the filter; arg[1]: the parameter's name; arg[2]: the value */
    CLV_IPC_GET,        /* what */
    CLV_IPC_SCREENSHOT, /* arg[0]: the PNG's path */
    CLV_IPC_PAUSE,
    CLV_IPC_RESUME,
    CLV_IPC_SEEK, /* seconds; absolute: 1 to that time, 0 by that much (mpv's default) */
    CLV_IPC_QUIT,
    CLV_IPC_VERBS
} clv_ipc_verb;

/* The verbs every run takes, and those the player adds. */
#define CLV_IPC_VERB(v) (1u << (v))
#define CLV_IPC_RUN_VERBS                                                                          \
    (CLV_IPC_VERB(CLV_IPC_SET_CHAIN) | CLV_IPC_VERB(CLV_IPC_SET_PARAM) |                           \
     CLV_IPC_VERB(CLV_IPC_GET) | CLV_IPC_VERB(CLV_IPC_PAUSE) | CLV_IPC_VERB(CLV_IPC_RESUME) |      \
     CLV_IPC_VERB(CLV_IPC_QUIT))
#define CLV_IPC_PLAYER_VERBS                                                                       \
    (CLV_IPC_RUN_VERBS | CLV_IPC_VERB(CLV_IPC_SCREENSHOT) | CLV_IPC_VERB(CLV_IPC_SEEK))

typedef enum clv_ipc_what {
    CLV_IPC_STATS,
    CLV_IPC_CHAIN,
    CLV_IPC_FILTERS,
    CLV_IPC_DEVICES
} clv_ipc_what;

/* One command, checked: its verb and arguments. The run answers it with
 * clv_ipc_reply, which frees it. */
typedef struct clv_ipc_request {
    clv_ipc_verb verb;
    const char *arg[3]; /* the command's words after its name, as text (numbers as written) */
    int index;          /* SET_PARAM: the filter's index in the chain, from 0 */
    double seconds;     /* SEEK */
    int absolute;       /* SEEK */
    clv_ipc_what what;  /* GET */
    /* The server's: who asked, the request_id to echo, the words' storage. */
    uint64_t client;
    int64_t request_id;
    char *words;
    struct clv_ipc_request *next;
} clv_ipc_request;

/* Listens on path for a run called run_name ("transcode", "play"), which
 * takes the verbs in the mask `verbs` (CLV_IPC_VERB bits; the others are
 * answered "NAME: not available in RUN_NAME"). The socket is its owner's
 * only (0600, set before it listens). A path that exists is refused
 * (CLV_EOPTION, msg naming it, the file untouched) unless it is a socket no
 * one listens on (a stale one, left by a run that crashed): that one is
 * removed and made again. On success *out is the caller's
 * (clv_ipc_close); on failure it is NULL. run_name is borrowed for the
 * server's life. */
int clv_ipc_open(const char *path, const char *run_name, unsigned verbs, clv_ipc **out,
                 clv_msg *msg);
/* The next command queued, or NULL when none is; never waits. The caller
 * owns it until clv_ipc_reply. */
clv_ipc_request *clv_ipc_next(clv_ipc *ipc);
/* Answers req and frees it: error NULL is success, else the message;
 * data (NULL: none) is one JSON value, written as it is. Never waits: the
 * reply is dropped when its client has gone. */
void clv_ipc_reply(clv_ipc *ipc, clv_ipc_request *req, const char *error, const char *data);
/* Sends {"event": NAME, ...} to every client; fields (NULL: none) are JSON
 * members without braces: "\"chain\":\"median\"". Never waits. */
void clv_ipc_event(clv_ipc *ipc, const char *name, const char *fields);
/* Answers what is still queued ("the run has ended"), writes what the
 * clients have not been sent yet (at most about a second), closes them,
 * stops the thread and removes the socket (when it is still the one this
 * server made). NULL is fine. */
void clv_ipc_close(clv_ipc *ipc);
/* The path the server listens on. */
const char *clv_ipc_path(const clv_ipc *ipc);

/* ---- Writing JSON -------------------------------------------------------- */

/* A growing text for replies' data and events' fields; text is NULL until
 * something is added, and stays valid (possibly cut short) when memory
 * runs out. clv_json_free frees it. */
typedef struct clv_json {
    char *text;
    size_t len, cap;
} clv_json;

void clv_json_add(clv_json *j, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* text as a JSON string: quoted, with ", \ and control characters escaped. */
void clv_json_string(clv_json *j, const char *text);
void clv_json_free(clv_json *j);

/* The data of `get filters` (every filter: name, help, parameters) and
 * `get devices` (every OpenCL device; in_use for those of ctx) into j. */
void clv_ipc_filters_json(clv_json *j);
void clv_ipc_devices_json(clv_json *j, const clv_context *ctx);

#endif
