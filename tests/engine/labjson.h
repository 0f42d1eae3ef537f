/* Reading a lab's JSON figures in the C tests: the number after
 * "name":"<run>" ... "<field>": in out, or -1. */
#ifndef GK_LABJSON_H
#define GK_LABJSON_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline double labField(const char *out, const char *run,
                              const char *name) {
    char key[64];
    snprintf(key, sizeof(key), "\"name\":\"%s\"", run);
    const char *p = strstr(out, key);
    if (!p) return -1;
    snprintf(key, sizeof(key), "\"%s\":", name);
    p = strstr(p, key);
    return p ? atof(p + strlen(key)) : -1;
}

#endif
