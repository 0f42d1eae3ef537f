/* Tests of the slow log and the latency monitor: the log keeps the newest
 * slowlog-max-len entries with ids that never repeat, trims arguments as
 * Redis 7.0 does, logs commands as the client sent them, and sees the
 * virtual time a command took (DEBUG SLEEP included), as the latency
 * monitor does, which also hears of the AOF's stalls. */
#include "gktest.h"
#include "aofkit.h"

/* The id (first field) of entry i of a SLOWLOG GET reply, or -1. */
static long long entryId(const char *reply, int i) {
    const char *p = reply;
    for (int k = 0; k <= i; k++) {
        p = strstr(p, "*6\r\n:");
        if (p == NULL) return -1;
        p += 5;
    }
    return atoll(p);
}

/* The log keeps the newest slowlog-max-len entries, newest first; a
 * lowered limit cuts it at the next command; RESET empties it while ids
 * go on; a negative threshold logs nothing. */
static void testTheLogKeepsTheNewestEntries(void) {
    node n;
    nodeOpen(&n, 1, "slowlog-log-slower-than 0\nslowlog-max-len 5\n");
    for (int i = 0; i < 20; i++) nodeCmdf(&n, "SET k%d v", i);
    CHECK_EQ_STR(nodeCmd(&n, "SLOWLOG LEN"), ":5\r\n");
    const char *r = nodeCmd(&n, "SLOWLOG GET 2");
    CHECK(strncmp(r, "*2\r\n", 4) == 0);
    CHECK_EQ_INT(entryId(r, 0), 20);    /* SLOWLOG LEN was entry 20 */
    CHECK_EQ_INT(entryId(r, 1), 19);
    CHECK(strstr(r, "$3\r\nSET\r\n$3\r\nk19\r\n$1\r\nv\r\n") != NULL);
    CHECK(strncmp(nodeCmd(&n, "SLOWLOG GET -1"), "*5\r\n", 4) == 0);
    CHECK_EQ_STR(nodeCmd(&n, "SLOWLOG GET 0"), "*0\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "SLOWLOG GET -2"),
                 "-ERR count should be greater than or equal to -1\r\n");
    nodeCmd(&n, "CONFIG SET slowlog-max-len 2");
    CHECK_EQ_STR(nodeCmd(&n, "SLOWLOG LEN"), ":2\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "SLOWLOG RESET"), "+OK\r\n");
    r = nodeCmd(&n, "SLOWLOG GET");
    CHECK_EQ_INT(entryId(r, 0), 27);    /* the RESET itself is logged */
    CHECK(strstr(r, "$7\r\nslowlog\r\n$5\r\nRESET\r\n") != NULL ||
          strstr(r, "$7\r\nSLOWLOG\r\n$5\r\nRESET\r\n") != NULL);
    nodeCmd(&n, "CONFIG SET slowlog-log-slower-than -1");
    nodeCmd(&n, "SLOWLOG RESET");
    nodeCmd(&n, "SET a b");
    CHECK_EQ_STR(nodeCmd(&n, "SLOWLOG LEN"), ":0\r\n");
    nodeClose(&n);
}

/* An entry keeps 32 arguments at most, the last saying how many more
 * there were, and 128 bytes of each, followed by how many more. */
static void testArgumentsAreTrimmedAsRedisTrimsThem(void) {
    static char line[8192], want[512];
    node n;
    nodeOpen(&n, 1, "slowlog-log-slower-than 0\n");
    int len = snprintf(line, sizeof(line), "SADD set");
    for (int i = 3; i <= 33; i++)
        len += snprintf(line + len, sizeof(line) - (size_t)len, " %d", i);
    nodeCmd(&n, line);
    const char *r = nodeCmd(&n, "SLOWLOG GET 2");
    CHECK(strstr(r, "*32\r\n$4\r\nSADD\r\n$3\r\nset\r\n$1\r\n3\r\n") != NULL);
    CHECK(strstr(r, "$2\r\n31\r\n$22\r\n... (2 more arguments)\r\n") != NULL);
    memset(line, 0, sizeof(line));
    memcpy(line, "SADD set foo ", 13);
    memset(line + 13, 'A', 129);
    nodeCmd(&n, line);
    r = nodeCmd(&n, "SLOWLOG GET 2");
    memset(want, 0, sizeof(want));
    memcpy(want, "$146\r\n", 6);
    memset(want + 6, 'A', 128);
    strcat(want, "... (1 more bytes)\r\n");
    CHECK(strstr(r, want) != NULL);
    nodeClose(&n);
}

/* A rewritten command is logged as sent (GEOADD runs as ZADD, SPOP that
 * empties its set propagates as DEL), passwords as "(redacted)"; EXEC is
 * not logged but what it runs is; a blocked BLPOP is logged once it is
 * served, as sent, and not at all if it times out (as in 7.0). */
static void testCommandsAreLoggedAsTheClientSentThem(void) {
    node n;
    nodeOpen(&n, 1, "slowlog-log-slower-than 0\n");
    nodeCmd(&n, "GEOADD cities -122.33207 47.60621 Seattle");
    CHECK(strstr(nodeCmd(&n, "SLOWLOG GET 1"),
                 "*5\r\n$6\r\nGEOADD\r\n$6\r\ncities\r\n$10\r\n-122.33207\r\n"
                 "$8\r\n47.60621\r\n$7\r\nSeattle\r\n") != NULL);
    nodeCmd(&n, "SADD s a b");
    nodeCmd(&n, "SPOP s 10");
    CHECK(strstr(nodeCmd(&n, "SLOWLOG GET 1"),
                 "*3\r\n$4\r\nSPOP\r\n$1\r\ns\r\n$2\r\n10\r\n") != NULL);
    nodeCmd(&n, "SLOWLOG RESET");
    nodeCmd(&n, "MULTI");
    nodeCmd(&n, "INCR x");
    nodeCmd(&n, "EXEC");
    const char *r = nodeCmd(&n, "SLOWLOG GET");
    CHECK(strstr(r, "$4\r\nEXEC\r\n") == NULL);
    CHECK(strstr(r, "$4\r\nINCR\r\n$1\r\nx\r\n") != NULL);
    CHECK(strstr(r, "$5\r\nMULTI\r\n") != NULL);

    nodeCmd(&n, "HELLO 2 AUTH default secret");
    CHECK(strstr(nodeCmd(&n, "SLOWLOG GET 1"),
                 "*5\r\n$5\r\nHELLO\r\n$1\r\n2\r\n$4\r\nAUTH\r\n"
                 "$10\r\n(redacted)\r\n$10\r\n(redacted)\r\n") != NULL);

    int other;
    gkConnOpen(n.w, n.srv, &other);
    gkConnSetLink(n.w, other, 20000, 0);
    gkConnSend(n.w, other, "BLPOP l 0\r\n", 11);
    nodeRun(&n, 10 * MS);
    nodeCmd(&n, "SLOWLOG RESET");
    nodeCmd(&n, "LPUSH l foo");
    r = nodeCmd(&n, "SLOWLOG GET 1");
    CHECK(strstr(r, "*3\r\n$5\r\nBLPOP\r\n$1\r\nl\r\n$1\r\n0\r\n") != NULL);
    gkConnSend(n.w, other, "BLPOP nol 0.1\r\n", 15);
    nodeRun(&n, 300 * MS);
    CHECK(strstr(nodeCmd(&n, "SLOWLOG GET"), "nol") == NULL);

    /* CLIENT UNBLOCK: an entry without arguments, as 7.0 logs it. */
    gkConnSend(n.w, other, "BLPOP zz 0\r\n", 12);
    nodeRun(&n, 10 * MS);
    r = nodeCmd(&n, "CLIENT LIST");
    const char *line = strstr(r, "cmd=blpop");
    while (line && line > r && line[-1] != '\n') line--;
    CHECK(line != NULL);
    if (line) {
        nodeCmd(&n, "SLOWLOG RESET");
        nodeCmdf(&n, "CLIENT UNBLOCK %lld", atoll(line + 3));
        r = nodeCmd(&n, "SLOWLOG GET 2");
        CHECK(strstr(r, "*3\r\n$6\r\nCLIENT\r\n$7\r\nUNBLOCK\r\n") != NULL);
        CHECK(strstr(r, "\r\n:0\r\n*0\r\n$15\r\n127.0.0.1:") != NULL);
    }
    nodeClose(&n);
}

/* DEBUG SLEEP stalls the server in virtual time: the slow log sees the
 * command take that long, and so does the latency monitor, as a
 * "command" event; RESET forgets the events. */
static void testDebugSleepIsSeenByTheLogAndTheMonitor(void) {
    node n;
    nodeOpen(&n, 1, "enable-debug-command yes\n"
                    "slowlog-log-slower-than 100000\n"
                    "latency-monitor-threshold 200\n");
    nodeCmd(&n, "PING");
    CHECK_EQ_STR(nodeCmd(&n, "SLOWLOG LEN"), ":0\r\n");
    nodeCmd(&n, "CLIENT SETNAME sleeper");
    nodeCmd(&n, "DEBUG SLEEP 0.3");
    const char *r = nodeCmd(&n, "SLOWLOG GET");
    CHECK(strncmp(r, "*1\r\n*6\r\n", 8) == 0);
    const char *dur = strstr(r + 8, "\r\n:");       /* after the id */
    dur = dur ? strstr(dur + 3, "\r\n:") : NULL;    /* after the time */
    CHECK(dur != NULL && atoll(dur + 3) >= 300000 &&
          atoll(dur + 3) < 310000);
    CHECK(strstr(r, "$7\r\nsleeper\r\n") != NULL);
    r = nodeCmd(&n, "LATENCY LATEST");
    CHECK(strncmp(r, "*1\r\n*4\r\n$7\r\ncommand\r\n", 21) == 0);
    CHECK(strstr(r, "\r\n:300\r\n:300\r\n") != NULL);
    nodeRun(&n, 2 * SEC);
    nodeCmd(&n, "DEBUG SLEEP 0.4");
    r = nodeCmd(&n, "LATENCY HISTORY command");
    CHECK(strncmp(r, "*2\r\n", 4) == 0);
    CHECK(strstr(r, ":400\r\n") != NULL);
    CHECK_EQ_STR(nodeCmd(&n, "LATENCY HISTORY nosuch"), "*0\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "LATENCY RESET"), ":1\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "LATENCY LATEST"), "*0\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "LATENCY GRAPH command"),
                 "-ERR No samples available for event 'command'\r\n");
    nodeClose(&n);
}

/* The AOF's stalls are latency events, named as Redis names them: an
 * fsync on a slow device under appendfsync always, and under everysec a
 * write forced out while a background fsync of the file still runs. */
static void testAofStallsAreLatencyEvents(void) {
    node n;
    nodeOpen(&n, 1, "appendonly yes\nappendfsync always\n"
                    "latency-monitor-threshold 10\n");
    gkDiskSetPreset(n.w, n.srv, "hdd");
    nodeRun(&n, 10 * MS);
    nodeCmd(&n, "SET a 1");
    CHECK(strstr(nodeCmd(&n, "LATENCY LATEST"),
                 "$16\r\naof-fsync-always\r\n") != NULL);
    nodeClose(&n);

    nodeOpen(&n, 1, "appendonly yes\nappendfsync everysec\n"
                    "latency-monitor-threshold 10\n");
    gkDiskSetPreset(n.w, n.srv, "slow-fsync");
    nodeRun(&n, 1100 * MS);
    for (int i = 0; i < 40; i++) {
        nodeCmd(&n, "INCR c");
        nodeRun(&n, 100 * MS);
    }
    const char *r = nodeCmd(&n, "LATENCY LATEST");
    CHECK(strstr(r, "$23\r\naof-write-pending-fsync\r\n") != NULL);
    CHECK(strstr(r, "$9\r\naof-write\r\n") != NULL);
    CHECK(strstr(nodeCmd(&n, "LATENCY DOCTOR"), "- SSD disks") != NULL);
    nodeClose(&n);
}

int main(void) {
    RUN("the slow log keeps the newest entries, with ids that never repeat",
        testTheLogKeepsTheNewestEntries);
    RUN("arguments are trimmed as Redis trims them",
        testArgumentsAreTrimmedAsRedisTrimsThem);
    RUN("commands are logged as the client sent them",
        testCommandsAreLoggedAsTheClientSentThem);
    RUN("DEBUG SLEEP is seen by the slow log and the latency monitor",
        testDebugSleepIsSeenByTheLogAndTheMonitor);
    RUN("the AOF's stalls are latency events",
        testAofStallsAreLatencyEvents);
    return gkTestReport();
}
