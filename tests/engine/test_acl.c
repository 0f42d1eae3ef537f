/* Tests of ACL users and permissions in the simulated world: the parts
 * tests/diff/scripts/acl.redis cannot show next to redis-server, because
 * they need a second connection, RESP3, the ACL log (whose entries carry
 * times and client details), the configuration or the disk. */
#include "gktest.h"
#include "aofkit.h"
#include "acl.h"
#include "command_keys.h"

/* Whether s contains needle. */
static int has(const char *s, const char *needle) {
    return strstr(s, needle) != NULL;
}

/* The ACL LOG entry fields as one line per entry: "count reason context
 * object username", in the log's order (newest first), into buf. */
static const char *logSummary(node *n, char *buf, size_t cap) {
    const char *r = nodeCmd(n, "ACL LOG");
    size_t len = 0;
    buf[0] = '\0';
    const char *names[] = { "$5\r\ncount\r\n:", "$6\r\nreason\r\n$",
                            "$7\r\ncontext\r\n$", "$6\r\nobject\r\n$",
                            "$8\r\nusername\r\n$" };
    for (const char *p = r; (p = strstr(p, names[0])) != NULL; p++) {
        for (int f = 0; f < 5; f++) {
            const char *v = strstr(p, names[f]) + strlen(names[f]);
            if (f) v = strstr(v, "\r\n") + 2;    /* past the bulk length */
            size_t vl = strcspn(v, "\r");
            len += (size_t)snprintf(buf + len, cap - len, "%.*s%s", (int)vl,
                                    v, f < 4 ? " " : "\n");
        }
    }
    return buf;
}

static void testNopermRepliesAndStats(void) {
    node n;
    nodeOpen(&n, 1, NULL);
    nodeCmd(&n, "ACL SETUSER alice on >p1pp0 ~cached:* +get +info +config "
                "+publish resetchannels &news");
    CHECK_EQ_STR(nodeCmd(&n, "AUTH alice p1pp0"), "+OK\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "SET x 1"), "-NOPERM this user has no "
                 "permissions to run the 'set' command\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "GET x"), "-NOPERM this user has no "
                 "permissions to access one of the keys used as "
                 "arguments\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "GET cached:1"), "$-1\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "PUBLISH sport x"), "-NOPERM this user has "
                 "no permissions to access one of the channels used as "
                 "arguments\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "PUBLISH news x"), ":0\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "CONFIG RESETSTAT"), "+OK\r\n");
    nodeCmd(&n, "GET x");
    nodeCmd(&n, "GET x");
    /* A denied call is a rejected call, and its error a NOPERM. */
    nodeCmd(&n, "INFO commandstats");
    CHECK(has(n.out, "cmdstat_get:calls=0,"));
    CHECK(has(n.out, "rejected_calls=2,failed_calls=0"));
    nodeCmd(&n, "INFO errorstats");
    CHECK(has(n.out, "errorstat_NOPERM:count=2"));
    /* NOAUTH comes first for an unauthenticated client. */
    nodeCmd(&n, "AUTH default x");
    CHECK_EQ_STR(nodeCmd(&n, "CONFIG SET requirepass pw"), "+OK\r\n");
    int b = connOpen(&n);
    connSend(&n, b, "ACL WHOAMI");
    CHECK_EQ_STR(connRead(&n, b), "-NOAUTH Authentication required.\r\n");
    nodeClose(&n);
}

static void testLogEntries(void) {
    node n;
    char buf[4096];
    nodeOpen(&n, 2, NULL);
    nodeCmd(&n, "ACL SETUSER antirez >foo on +set ~object:1234 +eval "
                "+multi +exec resetchannels +publish");
    nodeCmd(&n, "AUTH antirez foo");
    nodeCmd(&n, "GET foo");
    nodeCmd(&n, "GET foo");
    nodeCmd(&n, "SET somekey 1");
    nodeCmd(&n, "PUBLISH somechannel m");
    nodeCmd(&n, "MULTI");
    nodeCmd(&n, "INCR foo");
    nodeCmd(&n, "EXEC");
    nodeCmd(&n, "EVAL \"redis.call('incr','foo')\" 0");
    nodeCmd(&n, "AUTH antirez wrong");
    nodeCmd(&n, "AUTH default x");
    CHECK_EQ_STR(logSummary(&n, buf, sizeof(buf)),
                 "1 auth toplevel AUTH antirez\n"
                 "1 command lua incr antirez\n"
                 "1 command multi incr antirez\n"
                 "1 channel toplevel somechannel antirez\n"
                 "1 key toplevel somekey antirez\n"
                 "2 command toplevel get antirez\n");
    /* The client that was denied, and how long ago. */
    nodeCmd(&n, "ACL LOG 1");
    CHECK(has(n.out, "$11\r\nage-seconds\r\n$"));
    CHECK(has(n.out, "$11\r\nclient-info\r\n$"));
    CHECK(has(n.out, " user=antirez ") && has(n.out, " cmd=auth "));
    CHECK_EQ_STR(nodeCmd(&n, "ACL LOG 0"), "*0\r\n");
    /* A script's denial shows its caller's client. */
    nodeCmd(&n, "ACL LOG 2");
    CHECK(has(n.out, "cmd=eval"));
    /* RESP3: maps, and age-seconds a double. */
    nodeCmd(&n, "HELLO 3");
    nodeCmd(&n, "ACL LOG 1");
    CHECK(!strncmp(n.out, "*1\r\n%7\r\n", 8));
    CHECK(has(n.out, "age-seconds\r\n,"));
    nodeCmd(&n, "HELLO 2");
    /* An entry like a recent one is counted in it, and moves first. */
    nodeCmd(&n, "AUTH antirez foo");
    nodeCmd(&n, "GET foo");
    nodeCmd(&n, "AUTH default x");
    CHECK(!strncmp(logSummary(&n, buf, sizeof(buf)),
                   "3 command toplevel get antirez\n", 31));
    /* acllog-max-len keeps the newest. */
    nodeCmd(&n, "ACL LOG RESET");
    CHECK_EQ_STR(nodeCmd(&n, "CONFIG SET acllog-max-len 2"), "+OK\r\n");
    nodeCmd(&n, "AUTH antirez foo");
    nodeCmd(&n, "SET obj:1 1");
    nodeCmd(&n, "SET obj:2 1");
    nodeCmd(&n, "SET obj:3 1");
    nodeCmd(&n, "AUTH default x");
    CHECK_EQ_STR(logSummary(&n, buf, sizeof(buf)),
                 "1 key toplevel obj:3 antirez\n"
                 "1 key toplevel obj:2 antirez\n");
    CHECK_EQ_STR(nodeCmd(&n, "ACL LOG RESET"), "+OK\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "ACL LOG"), "*0\r\n");
    nodeClose(&n);
}

static void testExecRechecks(void) {
    node n;
    char buf[4096];
    nodeOpen(&n, 3, NULL);
    int admin = connOpen(&n);
    nodeCmd(&n, "ACL SETUSER antirez >foo on +multi +exec +incr +get "
                "~object:*");
    nodeCmd(&n, "AUTH antirez foo");
    nodeCmd(&n, "MULTI");
    nodeCmd(&n, "INCR object:1");
    nodeCmd(&n, "GET object:1");
    connSend(&n, admin, "ACL SETUSER antirez -incr");
    CHECK_EQ_STR(connRead(&n, admin), "+OK\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "EXEC"), "*2\r\n-NOPERM ACLs rules changed "
                 "between the moment the transaction was accumulated and the "
                 "EXEC call. This command is no longer allowed for the "
                 "following reason: no permission to execute the command or "
                 "subcommand\r\n$-1\r\n");
    nodeCmd(&n, "MULTI");
    nodeCmd(&n, "GET object:1");
    connSend(&n, admin, "ACL SETUSER antirez resetkeys ~other");
    connRead(&n, admin);
    CHECK(has(nodeCmd(&n, "EXEC"), "following reason: no permission to "
                                   "touch the specified keys\r\n"));
    connSend(&n, admin, "ACL LOG 2");
    (void)connRead(&n, admin);
    nodeCmd(&n, "AUTH default x");
    CHECK_EQ_STR(logSummary(&n, buf, sizeof(buf)),
                 "1 key multi object:1 antirez\n"
                 "1 command multi incr antirez\n");
    nodeClose(&n);
}

static void testDeletedUserDisconnects(void) {
    node n;
    nodeOpen(&n, 4, NULL);
    int a = connOpen(&n), b = connOpen(&n), c = connOpen(&n);
    nodeCmd(&n, "ACL SETUSER bob on >pw +@all ~*");
    connSend(&n, a, "AUTH bob pw");
    connSend(&n, b, "AUTH bob pw");
    CHECK_EQ_STR(connRead(&n, a), "+OK\r\n");
    CHECK_EQ_STR(connRead(&n, b), "+OK\r\n");
    CHECK(has(nodeCmd(&n, "CLIENT LIST"), " user=bob "));
    CHECK_EQ_STR(nodeCmd(&n, "CLIENT KILL USER nobody"),
                 "-ERR No such user 'nobody'\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "CLIENT KILL USER bob"), ":2\r\n");
    CHECK(!gkConnIsOpen(n.w, a) && !gkConnIsOpen(n.w, b));
    /* Deleting the user closes its connections, the caller's own once
     * its reply is written; the others stay. */
    a = connOpen(&n);
    connSend(&n, a, "AUTH bob pw");
    connRead(&n, a);
    CHECK_EQ_STR(nodeCmd(&n, "AUTH bob pw"), "+OK\r\n");
    /* (The reply itself is checked on a real socket by the suite: the
     * simulated connection drops what arrives as it closes.) */
    nodeCmd(&n, "ACL DELUSER bob ghost");
    nodeRun(&n, 10 * MS);
    CHECK(!gkConnIsOpen(n.w, a));
    CHECK(!gkConnIsOpen(n.w, n.conn));
    CHECK(gkConnIsOpen(n.w, c));
    connSend(&n, c, "ACL WHOAMI");
    CHECK_EQ_STR(connRead(&n, c), "$7\r\ndefault\r\n");
    nodeClose(&n);
}

static void testSubscribersLoseChannels(void) {
    node n;
    nodeOpen(&n, 5, NULL);
    nodeCmd(&n, "ACL SETUSER ps on nopass +@all resetchannels &foo:1 &bar:* "
                "&orders");
    int a = connOpen(&n), b = connOpen(&n), c = connOpen(&n);
    connSend(&n, a, "AUTH ps x");
    connSend(&n, a, "SUBSCRIBE foo:1");
    connSend(&n, b, "AUTH ps x");
    connSend(&n, b, "PSUBSCRIBE bar:*");
    connSend(&n, c, "AUTH ps x");
    connSend(&n, c, "SSUBSCRIBE orders");
    connRead(&n, a);
    connRead(&n, b);
    connRead(&n, c);
    /* A superset of the channels, or all of them, keeps everyone. */
    nodeCmd(&n, "ACL SETUSER ps resetchannels &foo:1 &bar:* &orders &zoo:*");
    nodeCmd(&n, "ACL SETUSER ps allchannels");
    CHECK(gkConnIsOpen(n.w, a) && gkConnIsOpen(n.w, b) &&
          gkConnIsOpen(n.w, c));
    /* A pattern subscription needs the same pattern, not one matching. */
    nodeCmd(&n, "ACL SETUSER ps resetchannels &foo:1 &bar:x &orders");
    CHECK(gkConnIsOpen(n.w, a) && !gkConnIsOpen(n.w, b));
    nodeCmd(&n, "ACL SETUSER ps resetchannels &foo:*");
    CHECK(gkConnIsOpen(n.w, a) && !gkConnIsOpen(n.w, c));
    nodeCmd(&n, "ACL SETUSER ps resetchannels");
    CHECK(!gkConnIsOpen(n.w, a));
    nodeClose(&n);
}

static void testScriptsRunAsTheCaller(void) {
    node n;
    nodeOpen(&n, 6, NULL);
    nodeCmd(&n, "ACL SETUSER bob on >123 +@scripting +set ~x*");
    nodeCmd(&n, "AUTH bob 123");
    CHECK_EQ_STR(nodeCmd(&n, "EVAL \"return redis.acl_check_cmd('set','xx',"
                         "1)\" 0"), ":1\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "EVAL \"return redis.acl_check_cmd('hset','xx',"
                         "'f',1)\" 0"), "$-1\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "EVAL \"return redis.acl_check_cmd('set','yy',"
                         "1)\" 0"), "$-1\r\n");
    CHECK(has(nodeCmd(&n, "EVAL \"return redis.acl_check_cmd('nope')\" 0"),
              "Invalid command passed to redis.acl_check_cmd()"));
    CHECK(has(nodeCmd(&n, "EVAL \"return redis.call('set','yy','v')\" 0"),
              "The user executing the script can't access at least one of "
              "the keys mentioned in the command arguments"));
    CHECK(has(nodeCmd(&n, "EVAL \"return redis.call('get','xx')\" 0"),
              "The user executing the script can't run this command or "
              "subcommand"));
    CHECK_EQ_STR(nodeCmd(&n, "EVAL \"return redis.call('set','xx','v')\" 0"),
                 "+OK\r\n");
    /* Functions too. */
    nodeCmd(&n, "AUTH default x");
    CHECK(has(nodeCmd(&n, "FUNCTION LOAD \"#!lua name=lib\\n"
                      "redis.register_function('f', function(k) return "
                      "redis.call('get', k[1]) end)\""), "lib"));
    nodeCmd(&n, "ACL SETUSER bob +fcall ~y*");
    nodeCmd(&n, "AUTH bob 123");
    CHECK(has(nodeCmd(&n, "FCALL f 1 yy"), "The user executing the script "
              "can't run this command or subcommand"));
    nodeClose(&n);
}

static void testGetuserInResp3(void) {
    node n;
    nodeOpen(&n, 7, NULL);
    nodeCmd(&n, "ACL SETUSER u on nopass skip-sanitize-payload +get ~k "
                "(+set %W~w &c)");
    nodeCmd(&n, "HELLO 3");
    CHECK_EQ_STR(nodeCmd(&n, "ACL GETUSER u"),
                 "%6\r\n$5\r\nflags\r\n~3\r\n$2\r\non\r\n$6\r\nnopass\r\n"
                 "$21\r\nskip-sanitize-payload\r\n"
                 "$9\r\npasswords\r\n*0\r\n"
                 "$8\r\ncommands\r\n$10\r\n-@all +get\r\n"
                 "$4\r\nkeys\r\n$2\r\n~k\r\n$8\r\nchannels\r\n$0\r\n\r\n"
                 "$9\r\nselectors\r\n*1\r\n%3\r\n"
                 "$8\r\ncommands\r\n$10\r\n-@all +set\r\n"
                 "$4\r\nkeys\r\n$4\r\n%W~w\r\n$8\r\nchannels\r\n$2\r\n&c\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "ACL GETUSER nobody"), "_\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "ACL WHOAMI"), "$7\r\ndefault\r\n");
    nodeClose(&n);
}

/* +@all -@<cat> and -@all +@<cat> describe back as themselves for every
 * category: the categories are the table's, and the best-fit search
 * finds them exactly. */
static void testCategoriesDescribeBack(void) {
    node n;
    char cmd[128], want[128];
    nodeOpen(&n, 8, NULL);
    for (int j = 0; commandAclCategoryNames[j]; j++) {
        const char *cat = commandAclCategoryNames[j];
        snprintf(cmd, sizeof(cmd), "ACL SETUSER a reset +@all -@%s", cat);
        nodeCmd(&n, cmd);
        nodeCmd(&n, "ACL GETUSER a");
        snprintf(want, sizeof(want), "\r\n$8\r\ncommands\r\n$%d\r\n+@all "
                 "-@%s\r\n", (int)strlen(cat) + 8, cat);
        CHECK(has(n.out, want));
        snprintf(cmd, sizeof(cmd), "ACL SETUSER r reset -@all +@%s", cat);
        nodeCmd(&n, cmd);
        nodeCmd(&n, "ACL GETUSER r");
        snprintf(want, sizeof(want), "\r\n$8\r\ncommands\r\n$%d\r\n-@all "
                 "+@%s\r\n", (int)strlen(cat) + 8, cat);
        CHECK(has(n.out, want));
    }
    /* ACL CAT lists subcommands too, and only the category's. */
    CHECK(has(nodeCmd(&n, "ACL CAT scripting"), "$13\r\nfunction|list\r\n"));
    CHECK(has(nodeCmd(&n, "ACL CAT transaction"), "$5\r\nmulti\r\n"));
    CHECK(!has(nodeCmd(&n, "ACL CAT keyspace"), "$3\r\nset\r\n"));
    nodeClose(&n);
}

static void testUsersFromTheConfiguration(void) {
    node n;
    nodeOpen(&n, 9, "user default on nopass ~* +@all -flushdb\n"
                    "user alice on >pw (+get ~rw*) resetchannels\n");
    CHECK_EQ_STR(nodeCmd(&n, "FLUSHDB"), "-NOPERM this user has no "
                 "permissions to run the 'flushdb' command\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "ACL LIST"),
                 "*2\r\n$131\r\nuser alice on #30c952fab122c3f9759f02a6d95c"
                 "3758b246b4fee239957b2d4fee46e26170c4 resetchannels -@all "
                 "(~rw* resetchannels -@all +get)\r\n"
                 "$71\r\nuser default on nopass sanitize-payload ~* "
                 "resetchannels +@all -flushdb\r\n");
    nodeClose(&n);
    /* The same user twice is refused, as a configuration error. */
    gkConfig cfg = gktConfig(9);
    gkWorld *w;
    int srv;
    gkWorldCreate(&w, &cfg, NULL, NULL);
    CHECK(gkServerAddConfig(w, "user foo on\nuser foo off\n", &srv) != GK_OK);
    CHECK(has(gkWorldLastError(w), "Error in user declaration 'foo': "
              "Duplicate user found. A user can only be defined once in "
              "config files"));
    gkWorldRelease(w);
}

static void testAclFileLoadAndSave(void) {
    node n;
    nodeOpen(&n, 10, NULL);
    CHECK(has(nodeCmd(&n, "ACL LOAD"), "-ERR This Redis instance is not "
              "configured to use an ACL file."));
    const char *file = "user alice on allcommands allkeys &* >alice\n"
                       "user bob on -@all +@set +acl ~set* &* >bob\n"
                       "user default on nopass ~* &* +@all\n";
    CHECK_EQ_INT(gkDiskWriteFile(n.w, n.srv, "users.acl", file,
                                 strlen(file)), GK_OK);
    gkServerCrash(n.w, n.srv, GK_CRASH_PROCESS);
    CHECK_EQ_INT(gkServerRestart(n.w, n.srv, "aclfile users.acl\n"), GK_OK);
    gkConnOpen(n.w, n.srv, &n.conn);
    gkConnSetLink(n.w, n.conn, 20000, 0);
    CHECK_EQ_STR(nodeCmd(&n, "AUTH bob bob"), "+OK\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "SADD set 1 2"), ":2\r\n");
    CHECK(has(nodeCmd(&n, "SET key v"), "NOPERM"));
    CHECK_EQ_STR(nodeCmd(&n, "ACL SETUSER eve on >eve +get allkeys"),
                 "+OK\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "ACL SAVE"), "+OK\r\n");
    char *saved = nodeFile(&n, "users.acl", 0, NULL);
    CHECK(saved && has(saved, "\nuser eve on #") &&
          has(saved, " ~* resetchannels -@all +get\n"));
    free(saved);
    /* LOAD replaces the users; the connections of the old ones go, this
     * one once its reply is written. */
    int other = connOpen(&n);
    nodeCmd(&n, "ACL LOAD");
    nodeRun(&n, 10 * MS);
    CHECK(!gkConnIsOpen(n.w, n.conn));
    CHECK(gkConnIsOpen(n.w, other));
    connSend(&n, other, "AUTH eve eve");
    CHECK_EQ_STR(connRead(&n, other), "+OK\r\n");
    connSend(&n, other, "GET x");
    connSend(&n, other, "SET x 1");
    CHECK_EQ_STR(connRead(&n, other), "$-1\r\n-NOPERM this user has no "
                 "permissions to run the 'set' command\r\n");
    connSend(&n, other, "AUTH default x");
    connRead(&n, other);
    /* A broken file changes nothing. */
    const char *bad = "user alice on nopass ~* +@all\n"
                      "user alice on nopass ~* -@all\n"
                      "bogus line\n";
    gkDiskWriteFile(n.w, n.srv, "users.acl", bad, strlen(bad));
    connSend(&n, other, "ACL LOAD");
    const char *r = connRead(&n, other);
    CHECK(has(r, "WARNING: Duplicate user 'alice' found on line 2. "));
    CHECK(has(r, "users.acl:3 should start with user keyword followed by "
                 "the username. "));
    CHECK(has(r, "WARNING: ACL errors detected, no change to the previously "
                 "active ACL rules was performed"));
    connSend(&n, other, "ACL USERS");
    CHECK_EQ_STR(connRead(&n, other), "*4\r\n$5\r\nalice\r\n$3\r\nbob\r\n"
                 "$7\r\ndefault\r\n$3\r\neve\r\n");
    nodeClose(&n);
}

static void testSortNeedsReadAccessToEveryKey(void) {
    node n;
    nodeOpen(&n, 11, NULL);
    nodeCmd(&n, "RPUSH mylist 1");
    nodeCmd(&n, "ACL SETUSER s on nopass (+sort ~mylist ~v*)");
    nodeCmd(&n, "AUTH s x");
    CHECK_EQ_STR(nodeCmd(&n, "SORT mylist BY v*"), "-ERR BY option of SORT "
                 "denied due to insufficient ACL permissions.\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "SORT mylist GET v*"), "-ERR GET option of "
                 "SORT denied due to insufficient ACL permissions.\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "SORT mylist BY const"), "*1\r\n$1\r\n1\r\n");
    nodeCmd(&n, "AUTH default x");
    nodeCmd(&n, "ACL SETUSER s (+sort ~mylist %R~*)");
    nodeCmd(&n, "AUTH s x");
    CHECK_EQ_STR(nodeCmd(&n, "SORT mylist BY v* GET #"), "*1\r\n$1\r\n1\r\n");
    nodeClose(&n);
}

static void testDefaultUserAndAuthentication(void) {
    node n;
    nodeOpen(&n, 12, NULL);
    nodeCmd(&n, "ACL SETUSER default off");
    int a = connOpen(&n);
    connSend(&n, a, "PING");
    CHECK_EQ_STR(connRead(&n, a), "-NOAUTH Authentication required.\r\n");
    connSend(&n, a, "AUTH default x");
    CHECK_EQ_STR(connRead(&n, a), "-WRONGPASS invalid username-password "
                 "pair or user is disabled.\r\n");
    nodeCmd(&n, "ACL SETUSER default on");
    connSend(&n, a, "AUTH default x");
    CHECK_EQ_STR(connRead(&n, a), "+OK\r\n");
    /* HELLO AUTH logs in as another user, whatever the default's rules. */
    nodeCmd(&n, "ACL SETUSER secure on >supass +@all");
    nodeCmd(&n, "ACL SETUSER default -@all");
    CHECK(has(nodeCmd(&n, "HELLO 2 AUTH secure supass"), "$5\r\nproto\r\n"
              ":2\r\n"));
    CHECK_EQ_STR(nodeCmd(&n, "ACL WHOAMI"), "$6\r\nsecure\r\n");
    /* requirepass is the default user's password. */
    nodeCmd(&n, "ACL SETUSER default +@all");
    nodeCmd(&n, "CONFIG SET requirepass pw");
    CHECK(has(nodeCmd(&n, "ACL GETUSER default"), "$9\r\npasswords\r\n*1\r\n"
              "$64\r\n30c952fab122c3f9759f02a6d95c3758b246b4fee239957b2d4fee"
              "46e26170c4\r\n"));
    CHECK_EQ_STR(nodeCmd(&n, "AUTH pw"), "+OK\r\n");
    CHECK_EQ_STR(nodeCmd(&n, "ACL WHOAMI"), "$7\r\ndefault\r\n");
    nodeCmd(&n, "CONFIG SET requirepass \"\"");
    CHECK(has(nodeCmd(&n, "AUTH pw"), "AUTH <password> called without any "
              "password configured for the default user."));
    /* RESET goes back to the default user. */
    nodeCmd(&n, "AUTH secure supass");
    nodeCmd(&n, "RESET");
    CHECK_EQ_STR(nodeCmd(&n, "ACL WHOAMI"), "$7\r\ndefault\r\n");
    nodeClose(&n);
}

int main(void) {
    RUN("a denied command, key or channel gets 7.0's NOPERM error and counts "
        "as a rejected call and a NOPERM error", testNopermRepliesAndStats);
    RUN("the ACL log records denials by reason and context, groups alike "
        "ones, keeps acllog-max-len entries and describes the client",
        testLogEntries);
    RUN("EXEC checks each queued command against the rules as they are then",
        testExecRechecks);
    RUN("deleting a user closes its connections, the caller's own after its "
        "reply; CLIENT KILL USER closes them too",
        testDeletedUserDisconnects);
    RUN("a subscriber is closed when its user loses a channel it listens to, "
        "kept when the channels grow", testSubscribersLoseChannels);
    RUN("scripts run their commands as the user that called them, and "
        "redis.acl_check_cmd answers for that user",
        testScriptsRunAsTheCaller);
    RUN("ACL GETUSER replies a map with a set of flags in RESP3, and a null "
        "for no user", testGetuserInResp3);
    RUN("every category alone describes back as itself, added or removed",
        testCategoriesDescribeBack);
    RUN("user lines of the configuration make the users at startup, a "
        "duplicate one is an error", testUsersFromTheConfiguration);
    RUN("ACL SAVE writes the users to the aclfile and ACL LOAD reads them "
        "back, all or nothing", testAclFileLoadAndSave);
    RUN("SORT's BY and GET need read access to every key",
        testSortNeedsReadAccessToEveryKey);
    RUN("the default user off leaves new connections unauthenticated, "
        "requirepass is its password, HELLO AUTH and RESET switch users",
        testDefaultUserAndAuthentication);
    return gkTestReport();
}
