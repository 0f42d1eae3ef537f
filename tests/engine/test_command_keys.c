/* test_command_keys.c -- the descriptions of command_table.c against the
 * engine's command table: every command has one, the rows are sorted
 * (the lookup is a binary search), the compact strings parse, every row
 * has its summary and complexity and no key spec has notes, and the
 * flags the engine acts on are the ones COMMAND INFO shows. The
 * descriptions themselves are compared with redis-server's in
 * tests/server/command.test.mjs. */
#include <stdlib.h>
#include "gktest.h"
#include "command_keys.h"

static void testEveryRowIsSortedByName(void) {
    for (int i = 1; i < commandMetaCount; i++)
        if (strcmp(commandMetaTable[i - 1].name,
                   commandMetaTable[i].name) >= 0) {
            fprintf(stderr, "  out of order: %s, %s\n",
                    commandMetaTable[i - 1].name, commandMetaTable[i].name);
            CHECK(0);
        }
    CHECK(commandMetaLookup("get") != NULL);
    CHECK(commandMetaLookup("config|get") != NULL);
    CHECK(commandMetaLookup("nosuch") == NULL);
}

/* The engine's flags that COMMAND INFO names too. */
static const struct { uint64_t engine; int info; const char *name; }
    sharedFlags[] = {
    { CMD_WRITE, CMDI_WRITE, "write" },
    { CMD_READONLY, CMDI_READONLY, "readonly" },
    { CMD_DENYOOM, CMDI_DENYOOM, "denyoom" },
    { CMD_ADMIN, CMDI_ADMIN, "admin" },
    { CMD_FAST, CMDI_FAST, "fast" },
    { CMD_NOSCRIPT, CMDI_NOSCRIPT, "noscript" },
    { CMD_LOADING, CMDI_LOADING, "loading" },
    { CMD_STALE, CMDI_STALE, "stale" },
    { CMD_NO_AUTH, CMDI_NO_AUTH, "no_auth" },
    { CMD_NO_MULTI, CMDI_NO_MULTI, "no_multi" },
    { CMD_SKIP_SLOWLOG, CMDI_SKIP_SLOWLOG, "skip_slowlog" },
    { CMD_SKIP_MONITOR, CMDI_SKIP_MONITOR, "skip_monitor" },
};

static void _checkCommand(const redisCommand *cmd) {
    const commandMeta *m = commandMetaLookup(cmd->fullname);
    if (!m) {
        fprintf(stderr, "  %s has no row in command_table.c\n",
                cmd->fullname);
        CHECK(0);
        return;
    }
    int info = commandInfoFlags(m);
    for (size_t j = 0; j < sizeof(sharedFlags) / sizeof(sharedFlags[0]);
         j++) {
        int engine = (cmd->flags & sharedFlags[j].engine) != 0;
        int shown = (info & sharedFlags[j].info) != 0;
        if (engine != shown) {
            fprintf(stderr, "  %s: %s is %s in the engine's table, %s in "
                    "its description\n", cmd->fullname, sharedFlags[j].name,
                    engine ? "set" : "unset", shown ? "set" : "unset");
            CHECK(0);
        }
    }
    keySpec specs[KSPEC_MAX];
    int n = commandKeySpecs(m, specs);
    for (int i = 0; i < n; i++) {
        CHECK(specs[i].flags != 0);
        if (specs[i].fk_type != KSPEC_UNKNOWN)
            CHECK(specs[i].keystep >= 1);
    }
    for (const redisCommand *sub = cmd->subcommands; sub && sub->declared_name;
         sub++)
        _checkCommand(sub);
}

static void testEveryCommandIsDescribedWithTheFlagsItRunsWith(void) {
    for (const redisCommand *cmd = redisCommandTable; cmd->declared_name;
         cmd++)
        _checkCommand(cmd);
}

/* The legacy range Redis derives: SET's one key, MSET's every other
 * argument, LMOVE's two specs glued, ZUNIONSTORE's keys past the range,
 * SORT's incomplete specs. */
static void testTheLegacyRangeIsDerivedFromTheSpecs(void) {
    struct { const char *name; int first, last, step, movable; } want[] = {
        { "get", 1, 1, 1, 0 },       { "mset", 1, -1, 2, 0 },
        { "lmove", 1, 2, 1, 0 },     { "zunionstore", 1, 1, 1, 1 },
        { "sort", 1, 1, 1, 1 },      { "xread", 0, 0, 0, 1 },
        { "ping", 0, 0, 0, 0 },      { "del", 1, -1, 1, 0 },
        { "georadius", 1, 1, 1, 1 }, { "memory|usage", 2, 2, 1, 0 },
    };
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        int first, last, step, movable;
        commandLegacyRange(commandMetaLookup(want[i].name), &first, &last,
                           &step, &movable);
        CHECK_EQ_INT(first, want[i].first);
        CHECK_EQ_INT(last, want[i].last);
        CHECK_EQ_INT(step, want[i].step);
        CHECK_EQ_INT(movable, want[i].movable);
    }
}

/* The arguments of one row: balanced parentheses, a known type before
 * each ':', key spec indexes within the row's specs. Returns 0 when the
 * string cannot be read. */
static int _argsReadable(const char *p, int nspecs) {
    int depth = 0, at_start = 1;
    for (; *p; p++) {
        if (at_start) {
            if (!strchr("sidkputob", *p)) return 0;
            at_start = 0;
        }
        if (*p == '(') depth++, at_start = 1;
        else if (*p == ')' && --depth < 0) return 0;
        else if (*p == ' ' && p[1] != ')') at_start = 1;
        else if (*p == '#' && atoi(p + 1) >= nspecs) return 0;
    }
    return depth == 0;
}

static void testEveryRowReads(void) {
    for (int i = 0; i < commandMetaCount; i++) {
        const commandMeta *m = &commandMetaTable[i];
        keySpec specs[KSPEC_MAX];
        int n = commandKeySpecs(m, specs), seps = 0;
        for (const char *p = m->keyspecs; p && *p; p++) seps += *p == ';';
        if (m->keyspecs) CHECK_EQ_INT(n, seps + 1);
        for (int j = 0; j < n; j++) {
            CHECK(specs[j].bs_type != KSPEC_BS_KEYWORD ||
                  specs[j].keyword_len > 0);
            CHECK(specs[j].bs_type != KSPEC_BS_INDEX || specs[j].pos > 0);
        }
        if (m->args && !_argsReadable(m->args, n)) {
            fprintf(stderr, "  %s: arguments unreadable\n", m->name);
            CHECK(0);
        }
        CHECK(m->group >= CG_GENERIC && m->group <= CG_MODULE);
        CHECK(m->since != NULL);
    }
}

/* Every spec is FLAGS:BEGIN:FIND and nothing more: the key specs carry
 * no notes. */
static void testKeySpecsHaveNoNotes(void) {
    for (int i = 0; i < commandMetaCount; i++) {
        int colons = 0;
        for (const char *p = commandMetaTable[i].keyspecs; p && *p; p++) {
            if (*p == ':') colons++;
            if (*p == ';' || !p[1]) {
                if (colons != 2) {
                    fprintf(stderr, "  %s: a key spec is not "
                            "FLAGS:BEGIN:FIND\n", commandMetaTable[i].name);
                    CHECK(0);
                }
                colons = 0;
            }
        }
    }
}

/* Every row has a summary and a complexity, each one line of text with
 * no final full stop. tests/server/command.test.mjs checks that they are
 * not redis-server's documentation text. */
static int _sentence(const char *s) {
    size_t n = s ? strlen(s) : 0;
    return n > 0 && s[n - 1] != '.' && s[n - 1] != ' ' && !strchr(s, '\n');
}

static void testEveryRowHasASummaryAndAComplexity(void) {
    for (int i = 0; i < commandMetaCount; i++) {
        const commandMeta *m = &commandMetaTable[i];
        if (!_sentence(m->summary) || !_sentence(m->complexity)) {
            fprintf(stderr, "  %s: summary or complexity missing or "
                    "malformed\n", m->name);
            CHECK(0);
        }
    }
}

int main(void) {
    RUN("every row's key specs and arguments can be read",
        testEveryRowReads);
    RUN("the key specs carry no notes", testKeySpecsHaveNoNotes);
    RUN("every row has a summary and a complexity",
        testEveryRowHasASummaryAndAComplexity);
    RUN("every description row is sorted by name",
        testEveryRowIsSortedByName);
    RUN("every command is described, with the flags it runs with",
        testEveryCommandIsDescribedWithTheFlagsItRunsWith);
    RUN("the legacy first/last/step is derived from the key specs",
        testTheLegacyRangeIsDerivedFromTheSpecs);
    return gkTestReport();
}
