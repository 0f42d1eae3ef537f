/* Tests of the AOF labs by the shape of their figures (never their exact
 * timings): what the lessons claim must be what the engine measures. */
#include <stdlib.h>
#include <string.h>
#include "gktest.h"
#include "gkworld.h"

#define RUN_MARK "\"name\":"  /* what opens each run of a lab's JSON */

/* The number after "key": in the run-th run (0-based) of a lab's JSON,
 * or -1e300 if absent. Runs are found by their "name" field. */
static double num(const char *json, const char *key, int run) {
    return gktLabNum(gktLabRun(json, run, RUN_MARK), key, RUN_MARK);
}

static void testAofIsNotAWal(void) {
    char *j = gktLab("aof-not-a-wal");
    for (int run = 0; run < 2; run++) {
        CHECK_EQ_INT(num(j, "commands_run_in_memory", run), 400);
        CHECK(num(j, "aof_buf_bytes", run) > 10000);
        CHECK_EQ_INT(num(j, "aof_file_bytes", run), 0);
        CHECK_EQ_INT(num(j, "replies_received", run), 0);
        CHECK_EQ_INT(num(j, "keys_after_restart", run), 0);
    }
    CHECK_EQ_INT(num(j, "mean_log_fsync_too_long", 2), 0);
    CHECK(num(j, "mean_log_fsync_too_long", 3) >= 1);
    CHECK(num(j, "mean_aof_delayed_fsync", 3) >= 1);
    CHECK(num(j, "max_loss_window_ms", 2) > 0);
    CHECK(num(j, "max_loss_window_ms", 2) < 2000);
    CHECK(num(j, "max_loss_window_ms", 3) > 2000);
    free(j);
}

/* The loss of one kind of crash under a policy: "<kind>":{...}. */
static double loss(const char *json, int run, const char *kind,
                   const char *key) {
    const char *p = json;
    for (int i = 0; i <= run && p; i++) p = strstr(p + (i > 0), "\"name\":");
    if (!p) return -1;
    p = strstr(p, kind);
    char want[64];
    snprintf(want, sizeof(want), "\"%s\":", key);
    p = p ? strstr(p, want) : NULL;
    return p ? strtod(p + strlen(want), NULL) : -1;
}

static void testFsyncPolicies(void) {
    char *j = gktLab("fsync-policies");
    CHECK(num(j, "ops_per_sec", 0) < num(j, "ops_per_sec", 1));
    CHECK(num(j, "fsyncs_per_sec", 0) > 100 * num(j, "fsyncs_per_sec", 1));
    for (int run = 0; run < 3; run++)
        CHECK_EQ_INT(loss(j, run, "process_crash", "max_lost_acknowledged"),
                     0);
    CHECK_EQ_INT(loss(j, 0, "power_loss", "max_lost_acknowledged"), 0);
    CHECK(loss(j, 1, "power_loss", "max_lost_acknowledged") > 0);
    CHECK(loss(j, 1, "power_loss", "max_loss_window_ms") < 2500);
    CHECK(loss(j, 2, "power_loss", "max_loss_window_ms") > 2500);
    free(j);
}

static void testDiskFull(void) {
    char *j = gktLab("disk-full");
    CHECK(num(j, "refused", 0) >= 1);
    CHECK(num(j, "first_refused_write", 0) > 1);
    CHECK_EQ_INT(num(j, "ping_refused", 0), 1);
    CHECK_EQ_INT(num(j, "get_still_works", 0), 1);
    CHECK_EQ_INT(num(j, "log_short_write", 0), 1);
    CHECK_EQ_INT(num(j, "log_write_error_solved", 0), 1);
    CHECK(num(j, "writes_accepted_again_after_ms", 0) >= 0);
    free(j);
}

int main(void) {
    RUN("aof-not-a-wal: a crash before beforeSleep loses the iteration, and "
        "a slow fsync loses more than two seconds", testAofIsNotAWal);
    RUN("fsync-policies: always is slowest and loses nothing, everysec "
        "about a second, no the page cache", testFsyncPolicies);
    RUN("disk-full: MISCONF for writes and PING, GET works, writes come "
        "back", testDiskFull);
    return gkTestReport();
}
