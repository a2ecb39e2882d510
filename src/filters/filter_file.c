/* filter_file.c - a file a filter's parameter names (lut3d's .cube, curves'
 * psfile), read whole on the host. */
#include "filters.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int clv__filter_file_read(const char *who, const char *path, size_t max, char **text, size_t *len,
                          clv_msg *msg)
{
    *text = NULL;
    *len = 0;
    struct stat st;
    if (stat(path, &st))
        return clv__fail(msg, errno == ENOENT ? CLV_ENOTFOUND : CLV_EIO, "%s: cannot read '%s': %s",
                         who, path, strerror(errno));
    if (!S_ISREG(st.st_mode))
        return clv__fail(msg, CLV_EIO, "%s: '%s' is not a regular file", who, path);
    if ((unsigned long long)st.st_size > max)
        return clv__fail(msg, CLV_EPARSE, "%s: '%s' is %lld bytes; at most %zu", who, path,
                         (long long)st.st_size, max);
    FILE *f = fopen(path, "rb");
    if (!f)
        return clv__fail(msg, CLV_EIO, "%s: cannot read '%s': %s", who, path, strerror(errno));
    /* the size stat gave, and one byte more to see that it did not grow */
    const size_t size = (size_t)st.st_size;
    char *buf = malloc(size + 2);
    size_t n = buf ? fread(buf, 1, size + 1, f) : 0;
    int bad = buf && (ferror(f) || n > size);
    fclose(f);
    if (!buf)
        return clv__fail(msg, CLV_ENOMEM, "%s: out of memory reading '%s'", who, path);
    if (bad) {
        free(buf);
        return clv__fail(msg, CLV_EIO, "%s: cannot read '%s' (it changed while read?)", who, path);
    }
    buf[n] = 0;
    *text = buf;
    *len = n;
    return 0;
}
