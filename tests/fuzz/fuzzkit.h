/* fuzzkit.h -- what the libFuzzer harnesses share: reading the fuzzer's
 * bytes as a little program (a byte, a number, a chunk), and failing
 * loudly when a property does not hold. Each harness uses only the
 * engine's public API (glasskv.h). */
#ifndef FUZZKIT_H
#define FUZZKIT_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "glasskv.h"

/* The fuzzer's input, consumed front to back. Reads past the end give
 * zeros and empty chunks, so every input is a valid program. */
typedef struct fuzzInput {
    const uint8_t *p;
    size_t len, pos;
} fuzzInput;

static inline fuzzInput fuzzInputOf(const uint8_t *p, size_t len) {
    fuzzInput in = { p, len, 0 };
    return in;
}

static inline int fuzzMore(const fuzzInput *in) { return in->pos < in->len; }

static inline uint8_t fuzzByte(fuzzInput *in) {
    return in->pos < in->len ? in->p[in->pos++] : 0;
}

static inline uint32_t fuzzU16(fuzzInput *in) {
    uint32_t lo = fuzzByte(in);
    return lo | (uint32_t)fuzzByte(in) << 8;
}

/* Up to max bytes: a length byte, then that many bytes (fewer at the end
 * of the input). Returns the chunk's length; *out points into the input. */
static inline size_t fuzzChunk(fuzzInput *in, size_t max,
                               const uint8_t **out) {
    size_t n = fuzzByte(in);
    if (n > max) n = max;
    if (n > in->len - in->pos) n = in->len - in->pos;
    *out = in->p + in->pos;
    in->pos += n;
    return n;
}

/* The rest of the input, NUL-terminated, in a buffer the caller frees. */
static inline char *fuzzRestString(fuzzInput *in) {
    size_t n = in->len - in->pos;
    char *s = malloc(n + 1);
    memcpy(s, in->p + in->pos, n);
    s[n] = '\0';
    in->pos = in->len;
    return s;
}

/* Case-insensitive search for word in the input's bytes. */
static inline int fuzzHasWord(const uint8_t *p, size_t len,
                              const char *word) {
    size_t w = strlen(word);
    for (size_t i = 0; i + w <= len; i++) {
        size_t j = 0;
        while (j < w && (p[i + j] | 0x20) == (word[j] | 0x20)) j++;
        if (j == w) return 1;
    }
    return 0;
}

/* A property did not hold: say which and stop, so libFuzzer keeps the
 * input as a crash. */
#define FUZZ_CHECK(cond, ...) do {                                       \
        if (!(cond)) {                                                   \
            fprintf(stderr, "fuzz: property failed: %s\n  ", #cond);     \
            fprintf(stderr, __VA_ARGS__);                                \
            fputc('\n', stderr);                                         \
            abort();                                                     \
        }                                                                \
    } while (0)

/* Reads and drops whatever conn has received, so replies do not pile up
 * in the harness's world. */
static inline void fuzzDrain(gkWorld *w, int conn) {
    char buf[4096];
    while (gkConnRecv(w, conn, buf, sizeof(buf)) == sizeof(buf)) {}
}

#endif
