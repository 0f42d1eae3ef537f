/* The encodings-memory lab (labs_mem.c) run headless: its figures have
 * the shapes the encodings explain. Their values are redis-server's
 * (tests/server/memory.test.mjs holds the same structures to a running
 * redis-server 7.0 within 5%). */
#include <string.h>
#include <stdlib.h>
#include "gktest.h"
#include "labjson.h"
#include "glasskv.h"

static char out[1 << 16];

static double field(const char *run, const char *name) {
    return labField(out, run, name);
}

static void testTheEncodingsCostWhatTheyShould(void) {
    long n = gkLabRun("encodings-memory", 1, out, sizeof(out));
    CHECK(n > 0 && n < (long)sizeof(out));
    CHECK(strstr(out, "\"name\":\"hash-listpack\",\"encoding\":\"listpack\"") != NULL);
    CHECK(strstr(out, "\"name\":\"hash-hashtable\",\"encoding\":\"hashtable\"") != NULL);
    CHECK(strstr(out, "\"name\":\"set-intset\",\"encoding\":\"intset\"") != NULL);
    CHECK(strstr(out, "\"name\":\"string-44\",\"encoding\":\"embstr\"") != NULL);
    CHECK(strstr(out, "\"name\":\"string-45\",\"encoding\":\"raw\"") != NULL);
    /* A field in a hash table: a 24-byte entry (32 in jemalloc) and two
     * sds blocks, against its bytes in a listpack. */
    CHECK(field("hash-hashtable", "bytes_per_element") >
          4 * field("hash-listpack", "bytes_per_element"));
    CHECK(field("set-hashtable", "bytes_per_element") >
          5 * field("set-intset", "bytes_per_element"));
    /* One byte more than an embstr holds costs a second block: 16 bytes
     * of object beside the sds, in the same 64-byte class. */
    CHECK_EQ_INT((long long)field("string-45", "used_memory_grew") -
                 (long long)field("string-44", "used_memory_grew"),
                 16 * 100000);
    CHECK(field("string-10", "bytes_per_key") <
          field("string-44", "bytes_per_key"));
}

int main(void) {
    RUN("the encodings-memory lab shows what each encoding costs an element",
        testTheEncodingsCostWhatTheyShould);
    return gkTestReport();
}
