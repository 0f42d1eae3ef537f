/* command_info.c -- the COMMAND command: COMMAND [INFO|DOCS|LIST|COUNT|
 * GETKEYS|GETKEYSANDFLAGS|HELP], with the replies of Redis 7.0 in RESP2
 * and RESP3, from the engine's table (names, arities, subcommands) and
 * the descriptions of command_table.c. The summaries and complexities
 * COMMAND DOCS gives are glasskv's own words, without Redis's history
 * entries or key spec notes. Commands are listed in the table's order
 * (Redis lists them in its hash table's order). */
#include "command_keys.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util.h"

/* 7.0's ACL categories, in its order (the bits of
 * commandAclCategories). */
const char *const commandAclCategoryNames[] = {
    "keyspace", "read", "write", "set", "sortedset", "list", "hash",
    "string", "bitmap", "hyperloglog", "geo", "stream", "pubsub", "admin",
    "fast", "slow", "blocking", "dangerous", "connection", "transaction",
    "scripting", NULL };

enum { CAT_READ = 1, CAT_WRITE = 2, CAT_PUBSUB = 12, CAT_ADMIN = 13,
       CAT_FAST = 14, CAT_SLOW = 15, CAT_BLOCKING = 16, CAT_DANGEROUS = 17,
       CAT_SCRIPTING = 20 };

/* The index of the category named name (any case), or -1. */
int commandAclCategoryIndex(const char *name) {
    for (int j = 0; commandAclCategoryNames[j]; j++)
        if (!strcasecmp(name, commandAclCategoryNames[j])) return j;
    return -1;
}

/* The categories of the command described by m, as bits of
 * commandAclCategoryNames: those it declares, and those Redis derives
 * from its flags (a command not @fast is @slow; a read-only scripting
 * command is not @read). */
uint32_t commandAclCategories(const commandMeta *m) {
    uint32_t cats = 0;
    if (!m) return 0;
    for (const char *p = m->acl; p && *p;) {
        const char *e = strchr(p, ' ');
        if (!e) e = p + strlen(p);
        for (int j = 0; commandAclCategoryNames[j]; j++)
            if ((size_t)(e - p) == strlen(commandAclCategoryNames[j]) &&
                !memcmp(p, commandAclCategoryNames[j], (size_t)(e - p)))
                cats |= 1u << j;
        p = *e ? e + 1 : e;
    }
    int flags = commandInfoFlags(m);
    if (flags & CMDI_WRITE) cats |= 1u << CAT_WRITE;
    if ((flags & CMDI_READONLY) && !(cats & (1u << CAT_SCRIPTING)))
        cats |= 1u << CAT_READ;
    if (flags & CMDI_ADMIN)
        cats |= (1u << CAT_ADMIN) | (1u << CAT_DANGEROUS);
    if (flags & CMDI_PUBSUB) cats |= 1u << CAT_PUBSUB;
    if (flags & CMDI_FAST) cats |= 1u << CAT_FAST;
    if (flags & CMDI_BLOCKING) cats |= 1u << CAT_BLOCKING;
    if (!(cats & (1u << CAT_FAST))) cats |= 1u << CAT_SLOW;
    return cats;
}

static const commandMeta *_meta(const redisCommand *cmd) {
    return commandMetaLookup(cmd->fullname);
}

/* A set of the names in names[] whose bit is in bits, as statuses. */
static void _replyFlagSet(client *c, uint32_t bits,
                          const char *const *names, const char *prefix) {
    long n = 0;
    for (int j = 0; names[j]; j++)
        if (bits & (1u << j)) n++;
    addReplySetLen(c, n);
    for (int j = 0; names[j]; j++) {
        if (!(bits & (1u << j))) continue;
        if (prefix) {
            char buf[64];
            snprintf(buf, sizeof(buf), "%s%s", prefix, names[j]);
            addReplyStatus(c, buf);
        } else {
            addReplyStatus(c, names[j]);
        }
    }
}

static void _replyKeyFlags(client *c, int flags) {
    _replyFlagSet(c, (uint32_t)flags, commandKeyFlagNames, NULL);
}

/* The words of a space-separated list, as a set of bulk strings. */
static void _replyWordSet(client *c, const char *list) {
    long n = 0;
    for (const char *p = list; p && *p; n++) {
        const char *e = strchr(p, ' ');
        p = e ? e + 1 : p + strlen(p);
    }
    addReplySetLen(c, n);
    for (const char *p = list; p && *p;) {
        const char *e = strchr(p, ' ');
        if (!e) e = p + strlen(p);
        addReplyBulkCBuffer(c, p, (size_t)(e - p));
        p = *e ? e + 1 : e;
    }
}

static void _replyKeySpecs(client *c, const commandMeta *m) {
    keySpec specs[KSPEC_MAX];
    int n = commandKeySpecs(m, specs);
    addReplySetLen(c, n);
    for (int i = 0; i < n; i++) {
        keySpec *ks = &specs[i];
        addReplyMapLen(c, 3);
        addReplyBulkCString(c, "flags");
        _replyKeyFlags(c, ks->flags);
        addReplyBulkCString(c, "begin_search");
        addReplyMapLen(c, 2);
        addReplyBulkCString(c, "type");
        if (ks->bs_type == KSPEC_BS_INDEX) {
            addReplyBulkCString(c, "index");
            addReplyBulkCString(c, "spec");
            addReplyMapLen(c, 1);
            addReplyBulkCString(c, "index");
            addReplyLongLong(c, ks->pos);
        } else if (ks->bs_type == KSPEC_BS_KEYWORD) {
            addReplyBulkCString(c, "keyword");
            addReplyBulkCString(c, "spec");
            addReplyMapLen(c, 2);
            addReplyBulkCString(c, "keyword");
            addReplyBulkCBuffer(c, ks->keyword, (size_t)ks->keyword_len);
            addReplyBulkCString(c, "startfrom");
            addReplyLongLong(c, ks->startfrom);
        } else {
            addReplyBulkCString(c, "unknown");
            addReplyBulkCString(c, "spec");
            addReplyMapLen(c, 0);
        }
        addReplyBulkCString(c, "find_keys");
        addReplyMapLen(c, 2);
        addReplyBulkCString(c, "type");
        if (ks->fk_type == KSPEC_FK_RANGE) {
            addReplyBulkCString(c, "range");
            addReplyBulkCString(c, "spec");
            addReplyMapLen(c, 3);
            addReplyBulkCString(c, "lastkey");
            addReplyLongLong(c, ks->lastkey);
            addReplyBulkCString(c, "keystep");
            addReplyLongLong(c, ks->keystep);
            addReplyBulkCString(c, "limit");
            addReplyLongLong(c, ks->limit);
        } else if (ks->fk_type == KSPEC_FK_KEYNUM) {
            addReplyBulkCString(c, "keynum");
            addReplyBulkCString(c, "spec");
            addReplyMapLen(c, 3);
            addReplyBulkCString(c, "keynumidx");
            addReplyLongLong(c, ks->keynumidx);
            addReplyBulkCString(c, "firstkey");
            addReplyLongLong(c, ks->firstkey);
            addReplyBulkCString(c, "keystep");
            addReplyLongLong(c, ks->keystep);
        } else {
            addReplyBulkCString(c, "unknown");
            addReplyBulkCString(c, "spec");
            addReplyMapLen(c, 0);
        }
    }
}

/* One command's entry of COMMAND INFO: name, arity, flags, the legacy
 * first/last/step, ACL categories, tips, key specs, subcommands. NULL
 * (a command that does not exist) is a null. */
static void _replyInfo(client *c, const redisCommand *cmd) {
    if (!cmd) {
        addReplyNull(c);
        return;
    }
    const commandMeta *m = _meta(cmd);
    int first, last, step, movable;
    commandLegacyRange(m, &first, &last, &step, &movable);
    addReplyArrayLen(c, 10);
    addReplyBulkCString(c, cmd->fullname);
    addReplyLongLong(c, cmd->arity);
    _replyFlagSet(c, (uint32_t)commandInfoFlags(m), commandInfoFlagNames,
                  NULL);
    addReplyLongLong(c, first);
    addReplyLongLong(c, last);
    addReplyLongLong(c, step);
    _replyFlagSet(c, commandAclCategories(m), commandAclCategoryNames,
                  "@");
    _replyWordSet(c, m ? m->tips : NULL);
    _replyKeySpecs(c, m);
    if (!cmd->subcommands) {
        addReplySetLen(c, 0);
        return;
    }
    long n = 0;
    for (const redisCommand *sub = cmd->subcommands; sub->declared_name;
         sub++)
        n++;
    addReplyArrayLen(c, n);
    for (const redisCommand *sub = cmd->subcommands; sub->declared_name;
         sub++)
        _replyInfo(c, sub);
}

/* ---- COMMAND DOCS. ---- */

static const char *const groupNames[] = {
    "generic", "string", "list", "set", "sorted-set", "hash", "pubsub",
    "transactions", "connection", "server", "scripting", "hyperloglog",
    "cluster", "sentinel", "geo", "stream", "bitmap", "module" };

/* One argument of the compact form (command_keys.h), parsed. */
typedef struct docArg {
    char type;
    int optional, multiple, multiple_token;
    const char *name, *token, *since, *deprecated;
    int name_len, token_len, since_len, deprecated_len;
    int spec;                   /* key spec index, or -1 */
    int has_args;
} docArg;

static const char *_argTypeName(char t) {
    switch (t) {
    case 's': return "string";
    case 'i': return "integer";
    case 'd': return "double";
    case 'k': return "key";
    case 'p': return "pattern";
    case 'u': return "unix-time";
    case 't': return "pure-token";
    case 'o': return "oneof";
    default: return "block";
    }
}

/* The end of a field of an argument: the next delimiter. */
static const char *_fieldEnd(const char *p) {
    while (*p && !strchr(" ()#=^!", *p)) p++;
    return p;
}

/* Parses the head of one argument at p into a (its arguments, if any,
 * begin at the returned pointer, on '('). */
static const char *_parseArg(const char *p, docArg *a) {
    memset(a, 0, sizeof(*a));
    a->spec = -1;
    a->type = *p++;
    for (; *p != ':'; p++) {
        if (*p == '?') a->optional = 1;
        else if (*p == '*') a->multiple = 1;
        else if (*p == '+') a->multiple_token = 1;
    }
    a->name = ++p;
    p = _fieldEnd(p);
    a->name_len = (int)(p - a->name);
    for (;;) {
        const char *v = p + 1, *e = _fieldEnd(v);
        if (*p == '#') {
            a->spec = atoi(v);
        } else if (*p == '=') {
            /* A token may hold '=' itself (XADD's "="). */
            if (*e == '=') e = _fieldEnd(e + 1);
            a->token = v;
            a->token_len = (int)(e - v);
        } else if (*p == '^') {
            a->since = v;
            a->since_len = (int)(e - v);
        } else if (*p == '!') {
            a->deprecated = v;
            a->deprecated_len = (int)(e - v);
        } else {
            break;
        }
        p = e;
    }
    a->has_args = *p == '(';
    return p;
}

static const char *_replyArgs(client *c, const char *p);

/* Replies one argument's map, the arguments of a oneof or a block
 * within; returns what follows it. */
static const char *_replyArg(client *c, const char *p) {
    docArg a;
    p = _parseArg(p, &a);
    int flags = (a.optional ? 1 : 0) | (a.multiple ? 2 : 0) |
                (a.multiple_token ? 4 : 0);
    long len = 2 + (a.spec >= 0) + (a.token != NULL) + (a.since != NULL) +
               (a.deprecated != NULL) + (flags != 0) + a.has_args;
    addReplyMapLen(c, len);
    addReplyBulkCString(c, "name");
    addReplyBulkCBuffer(c, a.name, (size_t)a.name_len);
    addReplyBulkCString(c, "type");
    addReplyBulkCString(c, _argTypeName(a.type));
    if (a.spec >= 0) {
        addReplyBulkCString(c, "key_spec_index");
        addReplyLongLong(c, a.spec);
    }
    if (a.token) {
        addReplyBulkCString(c, "token");
        if (a.token_len == 2 && !memcmp(a.token, "\"\"", 2)) {
            addReplyBulkCBuffer(c, "", 0);
        } else if (a.token_len) {
            addReplyBulkCBuffer(c, a.token, (size_t)a.token_len);
        } else {
            char up[64];
            int n = a.name_len < 63 ? a.name_len : 63;
            for (int i = 0; i < n; i++)
                up[i] = (char)toupper((unsigned char)a.name[i]);
            addReplyBulkCBuffer(c, up, (size_t)n);
        }
    }
    if (a.since) {
        addReplyBulkCString(c, "since");
        addReplyBulkCBuffer(c, a.since, (size_t)a.since_len);
    }
    if (a.deprecated) {
        addReplyBulkCString(c, "deprecated_since");
        addReplyBulkCBuffer(c, a.deprecated, (size_t)a.deprecated_len);
    }
    if (flags) {
        static const char *const argFlagNames[] = {
            "optional", "multiple", "multiple_token", NULL };
        addReplyBulkCString(c, "flags");
        _replyFlagSet(c, (uint32_t)flags, argFlagNames, NULL);
    }
    if (a.has_args) {
        addReplyBulkCString(c, "arguments");
        p = _replyArgs(c, p + 1);
        if (*p == ')') p++;
    }
    return p;
}

/* Replies the array of the arguments at p, up to ')' or the end. */
static const char *_replyArgs(client *c, const char *p) {
    void *len = addReplyDeferredLen(c);
    long n = 0;
    while (*p && *p != ')') {
        p = _replyArg(c, p);
        n++;
        if (*p == ' ') p++;
    }
    setDeferredArrayLen(c, len, n);
    return p;
}

static void _replyDocs(client *c, const redisCommand *cmd) {
    const commandMeta *m = _meta(cmd);
    static const commandMeta none = { .group = CG_GENERIC };
    if (!m) m = &none;
    long len = 1 + (m->summary != NULL) + (m->since != NULL) +
               (m->complexity != NULL) + (m->doc_flags != NULL) +
               (m->deprecated_since != NULL) + (m->replaced_by != NULL) +
               (m->args != NULL) + (cmd->subcommands != NULL);
    addReplyMapLen(c, len);
    if (m->summary) {
        addReplyBulkCString(c, "summary");
        addReplyBulkCString(c, m->summary);
    }
    if (m->since) {
        addReplyBulkCString(c, "since");
        addReplyBulkCString(c, m->since);
    }
    addReplyBulkCString(c, "group");
    addReplyBulkCString(c, groupNames[m->group]);
    if (m->complexity) {
        addReplyBulkCString(c, "complexity");
        addReplyBulkCString(c, m->complexity);
    }
    if (m->doc_flags) {
        static const char *const docFlagNames[] = {
            "deprecated", "syscmd", NULL };
        uint32_t bits = (strstr(m->doc_flags, "deprecated") ? 1 : 0) |
                        (strstr(m->doc_flags, "syscmd") ? 2 : 0);
        addReplyBulkCString(c, "doc_flags");
        _replyFlagSet(c, bits, docFlagNames, NULL);
    }
    if (m->deprecated_since) {
        addReplyBulkCString(c, "deprecated_since");
        addReplyBulkCString(c, m->deprecated_since);
    }
    if (m->replaced_by) {
        addReplyBulkCString(c, "replaced_by");
        addReplyBulkCString(c, m->replaced_by);
    }
    if (m->args) {
        addReplyBulkCString(c, "arguments");
        _replyArgs(c, m->args);
    }
    if (cmd->subcommands) {
        long n = 0;
        for (const redisCommand *s = cmd->subcommands; s->declared_name;
             s++)
            n++;
        addReplyBulkCString(c, "subcommands");
        addReplyMapLen(c, n);
        for (const redisCommand *s = cmd->subcommands; s->declared_name;
             s++) {
            addReplyBulkCString(c, s->fullname);
            _replyDocs(c, s);
        }
    }
}

/* ---- Finding commands by name. ---- */

static const redisCommand *_findIn(const redisCommand *table,
                                   const char *name, size_t len) {
    for (const redisCommand *cmd = table; cmd && cmd->declared_name; cmd++)
        if (strlen(cmd->declared_name) == len &&
            !strncasecmp(cmd->declared_name, name, len))
            return cmd;
    return NULL;
}

/* The command named name as COMMAND INFO and DOCS take it: "get" or
 * "config|get" (one level of subcommands; "get|x" is no command). */
static const redisCommand *_lookupByName(redisServer *s, const char *name) {
    const char *bar = strchr(name, '|');
    size_t len = bar ? (size_t)(bar - name) : strlen(name);
    if (!len) return NULL;
    const redisCommand *base = _findIn(s->cmdtable, name, len);
    if (!base || !bar) return base;
    if (!base->subcommands || strchr(bar + 1, '|')) return NULL;
    return _findIn(base->subcommands, bar + 1, strlen(bar + 1));
}

/* ---- The subcommands. ---- */

/* COMMAND (no subcommand) and COMMAND INFO with no name: every
 * command. */
static void _replyAllInfo(client *c) {
    long n = 0;
    for (const redisCommand *cmd = c->srv->cmdtable; cmd->declared_name;
         cmd++)
        n++;
    addReplyArrayLen(c, n);
    for (const redisCommand *cmd = c->srv->cmdtable; cmd->declared_name;
         cmd++)
        _replyInfo(c, cmd);
}

void commandCommand(client *c) { _replyAllInfo(c); }

/* COMMAND COUNT: the number of top-level commands in the table. */
void commandCountCommand(client *c) {
    addReplyLongLong(c, (long long)dictSize(c->srv->commands));
}

/* COMMAND INFO [name ...]: each named command's entry, a null for a
 * name that is no command. */
void commandInfoCommand(client *c) {
    if (c->argc == 2) {
        _replyAllInfo(c);
        return;
    }
    addReplyArrayLen(c, c->argc - 2);
    for (int i = 2; i < c->argc; i++)
        _replyInfo(c, _lookupByName(c->srv, c->argv[i]->v.ptr));
}

/* COMMAND DOCS [name ...]: a map from each command's name to its
 * documentation; names that are no command are left out. */
void commandDocsCommand(client *c) {
    if (c->argc == 2) {
        long n = 0;
        for (const redisCommand *cmd = c->srv->cmdtable; cmd->declared_name;
             cmd++)
            n++;
        addReplyMapLen(c, n);
        for (const redisCommand *cmd = c->srv->cmdtable; cmd->declared_name;
             cmd++) {
            addReplyBulkCString(c, cmd->fullname);
            _replyDocs(c, cmd);
        }
        return;
    }
    void *len = addReplyDeferredLen(c);
    long n = 0;
    for (int i = 2; i < c->argc; i++) {
        const redisCommand *cmd = _lookupByName(c->srv, c->argv[i]->v.ptr);
        if (!cmd) continue;
        addReplyBulkCString(c, cmd->fullname);
        _replyDocs(c, cmd);
        n++;
    }
    setDeferredMapLen(c, len, n);
}

/* COMMAND LIST's filter: by module (there are none), ACL category or
 * name pattern. */
typedef struct listFilter {
    int type;                   /* 0 none, 1 module, 2 aclcat, 3 pattern */
    const char *arg;
    int cat;                    /* the category's index, or -1 */
} listFilter;

static int _listed(const redisCommand *cmd, const listFilter *f) {
    switch (f->type) {
    case 0: return 1;
    case 1: return 0;
    case 2:
        return f->cat >= 0 &&
               (commandAclCategories(_meta(cmd)) & (1u << f->cat));
    default:
        return stringmatchlen(f->arg, (int)strlen(f->arg), cmd->fullname,
                              (int)strlen(cmd->fullname), 1);
    }
}

static long _list(client *c, const redisCommand *table,
                  const listFilter *f) {
    long n = 0;
    for (const redisCommand *cmd = table; cmd->declared_name; cmd++) {
        if (_listed(cmd, f)) {
            addReplyBulkCString(c, cmd->fullname);
            n++;
        }
        if (cmd->subcommands) n += _list(c, cmd->subcommands, f);
    }
    return n;
}

/* COMMAND LIST [FILTERBY MODULE name|ACLCAT category|PATTERN pattern]:
 * the names of the commands and subcommands ("config|get"). */
void commandListCommand(client *c) {
    listFilter f = { 0, NULL, -1 };
    for (int i = 2; i < c->argc; i++) {
        const char *type = i + 1 < c->argc ? c->argv[i + 1]->v.ptr : "";
        if (strcasecmp(c->argv[i]->v.ptr, "filterby") ||
            c->argc - 1 - i != 2) {
            addReplyError(c, "syntax error");
            return;
        }
        if (!strcasecmp(type, "module")) f.type = 1;
        else if (!strcasecmp(type, "aclcat")) f.type = 2;
        else if (!strcasecmp(type, "pattern")) f.type = 3;
        else {
            addReplyError(c, "syntax error");
            return;
        }
        f.arg = c->argv[i + 2]->v.ptr;
        f.cat = commandAclCategoryIndex(f.arg);
        i += 2;
    }
    void *len = addReplyDeferredLen(c);
    setDeferredArrayLen(c, len, _list(c, c->srv->cmdtable, &f));
}

/* COMMAND GETKEYS and GETKEYSANDFLAGS: the keys of the command line
 * that follows, with their flags for the latter. */
static void _getKeys(client *c, int with_flags) {
    robj **argv = c->argv + 2;
    int argc = c->argc - 2;
    const redisCommand *cmd = lookupCommand(c->srv, argv, argc);
    const commandMeta *m = cmd ? _meta(cmd) : NULL;
    if (!cmd) {
        addReplyError(c, "Invalid command specified");
        return;
    }
    if (!commandHasKeys(m)) {
        addReplyError(c, "The command has no key arguments");
        return;
    }
    if ((cmd->arity > 0 && cmd->arity != argc) || argc < -cmd->arity) {
        addReplyError(c, "Invalid number of arguments specified for "
                      "command");
        return;
    }
    getKeysResult r;
    getKeysInit(&r);
    if (!getKeysFromCommand(c->srv->mem, m, argv, argc, &r)) {
        if (commandInfoFlags(m) & CMDI_NO_MANDATORY_KEYS)
            addReplyArrayLen(c, 0);
        else
            addReplyError(c, "Invalid arguments specified for command");
        getKeysFree(c->srv->mem, &r);
        return;
    }
    addReplyArrayLen(c, r.numkeys);
    for (int j = 0; j < r.numkeys; j++) {
        if (with_flags) addReplyArrayLen(c, 2);
        addReplyBulk(c, argv[r.keys[j].pos]);
        if (with_flags) _replyKeyFlags(c, r.keys[j].flags);
    }
    getKeysFree(c->srv->mem, &r);
}

void commandGetKeysCommand(client *c) { _getKeys(c, 0); }

void commandGetKeysAndFlagsCommand(client *c) { _getKeys(c, 1); }

/* COMMAND HELP: 7.0's text. */
void commandHelpCommand(client *c) {
    const char *help[] = {
"(no subcommand)",
"    Return details about all Redis commands.",
"COUNT",
"    Return the total number of commands in this Redis server.",
"LIST",
"    Return a list of all commands in this Redis server.",
"INFO [<command-name> ...]",
"    Return details about multiple Redis commands.",
"    If no command names are given, documentation details for all",
"    commands are returned.",
"DOCS [<command-name> ...]",
"    Return documentation details about multiple Redis commands.",
"    If no command names are given, documentation details for all",
"    commands are returned.",
"GETKEYS <full-command>",
"    Return the keys from a full Redis command.",
"GETKEYSANDFLAGS <full-command>",
"    Return the keys and the access flags from a full Redis command.",
NULL
    };
    addReplyHelp(c, help);
}
