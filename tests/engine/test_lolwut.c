/* Tests of LOLWUT that a differential script cannot check: its drawings
 * draw from the world's seeded PRNG where Redis draws from rand(), so the
 * same seed gives the same picture and another seed another. The version
 * line, the errors and the drawings with nothing random in them are
 * compared with redis-server by tests/diff/scripts/lolwut.redis, the
 * others' shapes by tests/server/lolwut.test.mjs. */
#include <stdlib.h>
#include "gktest.h"
#include "aofkit.h"

/* The reply to line on a new world of that seed, malloc'd. */
static char *_drawn(uint64_t seed, const char *line) {
    node n;
    nodeOpen(&n, seed, NULL);
    char *r = strdup(nodeCmd(&n, line));
    nodeClose(&n);
    return r;
}

static void _checkSeeded(const char *line, const char *caption) {
    char *a = _drawn(1, line), *b = _drawn(1, line), *c = _drawn(2, line);
    CHECK(strstr(a, caption) != NULL);
    CHECK_EQ_STR(a, b);
    CHECK(strcmp(a, c) != 0);
    free(a);
    free(b);
    free(c);
}

/* Schotter's lower rows and the skyline are drawn from the seed. */
static void testDrawingsAreReproducibleFromTheSeed(void) {
    _checkSeeded("LOLWUT VERSION 5",
                 "\nGeorg Nees - schotter, plotter on paper, 1968. "
                 "Redis ver. 7.0.15\n\r\n");
    _checkSeeded("LOLWUT VERSION 6 40 10",
                 "\nDedicated to the 8 bit game developers of past and "
                 "present.\nOriginal 8 bit image from Plaguemon by "
                 "hikikomori. Redis ver. 7.0.15\n\r\n");
}

/* The default Schotter is 66 characters (132 dots) wide: 2 dots of
 * margin each side and 8 squares of 16 dots, 12 rows of which make it
 * 196 dots tall, so 49 lines of Braille (3 bytes a character) before
 * the empty line and the caption, as redis-server draws it. */
static void testSchotterHasRedisSize(void) {
    char *r = _drawn(1, "LOLWUT VERSION 5");
    char *body = strstr(r, "\r\n") + 2;
    int lines = 0;
    for (char *p = body, *nl; (nl = strchr(p, '\n')) && nl[1] != 'G';
         p = nl + 1) {
        CHECK_EQ_INT(nl - p, 66 * 3);
        lines++;
    }
    CHECK_EQ_INT(lines, 49);
    free(r);
}

int main(void) {
    RUN("LOLWUT's drawings are reproducible from the world's seed",
        testDrawingsAreReproducibleFromTheSeed);
    RUN("LOLWUT VERSION 5 draws Schotter at Redis's size",
        testSchotterHasRedisSize);
    return gkTestReport();
}
