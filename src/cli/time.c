/* time.c - the time values of the command line (-ss, -t). */
#include "cli.h"

#include <errno.h>
#include <stdlib.h>

int64_t clv_cli_parse_time(const char *text)
{
    double seconds = 0;
    const char *p = text;
    for (int part = 0; part < 3; part++) {
        char *end;
        errno = 0;
        double v = strtod(p, &end);
        if (end == p || errno || v < 0)
            return -1;
        seconds = seconds * 60 + v; /* hh:mm:ss is ((hh * 60) + mm) * 60 + ss */
        if (*end != ':')
            return *end ? -1 : (int64_t)(seconds * 1e6 + 0.5);
        p = end + 1;
    }
    return -1; /* more than three parts */
}
