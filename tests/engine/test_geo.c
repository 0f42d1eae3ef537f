/* Tests of the GEO commands: scores and geohash strings are Redis's to
 * the bit, a search finds exactly the members a brute-force scan of the
 * set finds inside the shape (in both encodings, across the antimeridian),
 * stored results take the encoding their size calls for, and writes reach
 * the AOF as Redis 7.0 propagates them. */
#include <math.h>
#include "gktest.h"
#include "aofkit.h"
#include "geohash.h"

#define INCR1 "appendonlydir/appendonly.aof.1.incr.aof"

/* GEOADD stores Redis's 52-bit scores, GEOPOS and GEOHASH decode them as
 * Redis does, and GEODIST rounds to four decimals. The expected values
 * are redis-server 7.0's replies. */
static void testScoresAndDecodingMatchRedis(void) {
    node n;
    nodeOpen(&n, 1, NULL);
    CHECK_EQ_STR(nodeCmd(&n, "GEOADD s 13.361389 38.115556 Palermo "
                             "15.087269 37.502669 Catania"), ":2\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "ZSCORE s Palermo"),
                 "$16\r\n3479099956230698\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "ZSCORE s Catania"),
                 "$16\r\n3479447370796909\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "GEOPOS s Palermo nosuch"),
                 "*2\r\n*2\r\n$20\r\n13.36138933897018433\r\n"
                 "$20\r\n38.11555639549629859\r\n*-1\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "GEOHASH s Palermo Catania nosuch"),
                 "*3\r\n$11\r\nsqc8b49rny0\r\n$11\r\nsqdtr74hyu0\r\n"
                 "$-1\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "GEODIST s Palermo Catania"),
                 "$11\r\n166274.1516\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "GEODIST s Palermo Catania km"),
                 "$8\r\n166.2742\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "GEOADD s 200 100 x"),
                 "-ERR invalid longitude,latitude pair "
                 "200.000000,100.000000\r\n");
    nodeCmd(&n, "HELLO 3");
    CHECK_EQ_STR(nodeCmd(&n, "GEOPOS s Catania nosuch"),
                 "*2\r\n*2\r\n,15.08726745843887329\r\n"
                 ",37.50266842333162032\r\n_\r\n");
    nodeClose(&n);
}

/* The members within radius_m of (lon, lat) by brute force, as a
 * newline-separated list sorted by name, into out. */
static void bruteForce(double *pts, int npts, double lon, double lat,
                       double radius_m, char *out, size_t cap) {
    out[0] = '\0';
    for (int i = 0; i < npts; i++) {
        geoHashBits h;
        double xy[2];
        geohashEncodeWGS84(pts[2 * i], pts[2 * i + 1], GEO_STEP_MAX, &h);
        geohashDecodeScore((double)geohashAlign52Bits(h), xy);
        if (geohashDistance(lon, lat, xy[0], xy[1]) <= radius_m) {
            size_t len = strlen(out);
            snprintf(out + len, cap - len, "p%03d\n", i);
        }
    }
}

/* The members of a search reply (flat array of bulk strings), sorted by
 * name (they are named p000..p999, so a sort of fixed-width lines). */
static void replyMembers(const char *reply, char *out, size_t cap) {
    char names[1000][8];
    int count = 0;
    const char *p = reply;
    while ((p = strstr(p, "\r\np")) != NULL && count < 1000) {
        memcpy(names[count], p + 2, 4);
        names[count++][4] = '\0';
        p += 2;
    }
    qsort(names, (size_t)count, sizeof(names[0]),
          (int (*)(const void *, const void *))strcmp);
    out[0] = '\0';
    for (int i = 0; i < count; i++) {
        size_t len = strlen(out);
        snprintf(out + len, cap - len, "%s\n", names[i]);
    }
}

/* Random points and random circles: GEOSEARCH finds exactly the points a
 * scan finds within the radius, in a listpack and in a skiplist, and
 * GEORADIUS agrees with GEOSEARCH. Latitudes stay within +-70, where the
 * nine cells always cover the circle (near the poles Redis may miss
 * members, and so does the engine, by the same arithmetic). */
static void testSearchesFindWhatAScanFinds(void) {
    static double pts[2 * 400];
    static char want[8192], got[8192], reply[1 << 16];
    uint64_t rnd = 0x9e0;
    node n;
    nodeOpen(&n, 1, NULL);
    for (int round = 0; round < 12; round++) {
        int npts = round % 2 ? 300 : 60;
        nodeCmd(&n, "DEL g");
        for (int i = 0; i < npts; i++) {
            pts[2 * i] = -180 + (double)(gkTestRand(&rnd) % 3600000) / 1e4;
            pts[2 * i + 1] = -70 + (double)(gkTestRand(&rnd) % 1400000) / 1e4;
            nodeCmdf(&n, "GEOADD g %.4f %.4f p%03d", pts[2 * i], pts[2 * i + 1],
                 i);
        }
        CHECK_EQ_STR(nodeCmd(&n, "OBJECT ENCODING g"), npts > 128 ?
                     "$8\r\nskiplist\r\n" : "$8\r\nlistpack\r\n");
        for (int q = 0; q < 10; q++) {
            double lon = -180 + (double)(gkTestRand(&rnd) % 3600) / 10;
            double lat = -70 + (double)(gkTestRand(&rnd) % 1400) / 10;
            int km = 1 + (int)(gkTestRand(&rnd) % 3000);
            bruteForce(pts, npts, lon, lat, km * 1000.0, want, sizeof(want));
            snprintf(reply, sizeof(reply), "%s", nodeCmdf(&n,
                "GEOSEARCH g FROMLONLAT %.1f %.1f BYRADIUS %d km ASC",
                lon, lat, km));
            replyMembers(reply, got, sizeof(got));
            CHECK_EQ_STR(got, want);
            CHECK_EQ_STR(nodeCmdf(&n, "GEORADIUS g %.1f %.1f %d km ASC",
                              lon, lat, km), reply);
        }
    }
    nodeClose(&n);
}

/* A circle around the antimeridian reaches points on both sides of it:
 * the east neighbour of the last column is the first. */
static void testSearchesWrapAroundTheAntimeridian(void) {
    node n;
    nodeOpen(&n, 1, NULL);
    nodeCmd(&n, "GEOADD g 179.9 10 east -179.9 10 west 0 10 far");
    CHECK_EQ_STR(nodeCmd(&n, "GEOSEARCH g FROMLONLAT 179.95 10 "
                             "BYRADIUS 50 km ASC"),
                 "*2\r\n$4\r\neast\r\n$4\r\nwest\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "GEOSEARCH g FROMLONLAT -179.99 10 "
                             "BYBOX 100 100 km DESC"),
                 "*2\r\n$4\r\neast\r\n$4\r\nwest\r\n");
    nodeClose(&n);
}

/* STORE and GEOSEARCHSTORE build a listpack when the result fits one and
 * a skiplist when it does not, score by distance with STOREDIST, and
 * delete the destination when nothing is found. */
static void testStoredResultsTakeTheirEncoding(void) {
    node n;
    nodeOpen(&n, 1, "zset-max-listpack-entries 4\n");
    for (int i = 0; i < 6; i++)
        nodeCmdf(&n, "GEOADD g %d.0 %d.0 m%d", i, i, i);
    CHECK_EQ_STR(nodeCmd(&n, "GEOSEARCHSTORE d g FROMLONLAT 0 0 "
                             "BYRADIUS 1000 km COUNT 3"), ":3\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "OBJECT ENCODING d"), "$8\r\nlistpack\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "GEORADIUS g 0 0 1000 km STOREDIST d"),
                 ":6\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "OBJECT ENCODING d"), "$8\r\nskiplist\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "ZRANGE d 0 1 WITHSCORES"),
                 "*4\r\n$2\r\nm0\r\n$21\r\n0.0003299589265287915\r\n"
                 "$2\r\nm1\r\n$18\r\n157.29370154832844\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "GEOSEARCHSTORE d g FROMLONLAT 100 0 "
                             "BYRADIUS 1 km"), ":0\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "EXISTS d"), ":0\r\n");
    nodeClose(&n);
}

/* GEOADD reaches the AOF as the ZADD it becomes, a search that stores as
 * itself, and a rejected GEOADD not at all. */
static void testWritesPropagateAsRedisDoes(void) {
    node n;
    nodeOpen(&n, 1, "appendonly yes\nappendfsync always\n");
    nodeCmd(&n, "GEOADD g CH 13.361389 38.115556 Palermo");
    nodeCmd(&n, "GEOADD g 13 38 ok 200 0 bad");
    nodeCmd(&n, "GEORADIUS g 13 38 100 km STORE d");
    char *f = nodeFile(&n, INCR1, 0, NULL);
    CHECK(f != NULL);
    if (f) {
        CHECK(strstr(f, "*5\r\n$4\r\nzadd\r\n$1\r\ng\r\n$2\r\nCH\r\n"
                        "$16\r\n3479099956230698\r\n$7\r\nPalermo\r\n")
              != NULL);
        CHECK(strstr(f, "$2\r\nok\r\n") == NULL);
        CHECK(strstr(f, "*8\r\n$9\r\nGEORADIUS\r\n$1\r\ng\r\n") != NULL);
        free(f);
    }
    nodeClose(&n);
}

int main(void) {
    RUN("scores, positions, geohashes and distances are Redis's",
        testScoresAndDecodingMatchRedis);
    RUN("searches find exactly what a scan of the set finds",
        testSearchesFindWhatAScanFinds);
    RUN("searches wrap around the antimeridian",
        testSearchesWrapAroundTheAntimeridian);
    RUN("stored results take the encoding their size calls for",
        testStoredResultsTakeTheirEncoding);
    RUN("writes propagate as Redis 7.0 propagates them",
        testWritesPropagateAsRedisDoes);
    return gkTestReport();
}
