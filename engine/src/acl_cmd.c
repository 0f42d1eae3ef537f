/* acl_cmd.c -- AUTH, the ACL command, the ACL log, the ACL file and the
 * "user" lines of the configuration, as Redis 7.0 has them. */
#include <string.h>
#include <strings.h>
#include <stdio.h>
#include "acl.h"
#include "command_keys.h"
#include "script.h"

/* ---- The ACL log. ----
 *
 * Every denial (a command, a key, a channel, a failed AUTH) is logged,
 * newest first, at most acllog-max-len entries. A denial like one of the
 * last 10 entries (same reason, context, object and user, within a
 * minute) bumps that entry's count and moves it to the front instead of
 * adding one. */

#define ACL_LOG_GROUPING_MAX_TIME_DELTA 60000

static void _logEntryFree(redisServer *s, aclLogEntry *le) {
    sdsfree(s->mem, le->object);
    sdsfree(s->mem, le->username);
    sdsfree(s->mem, le->cinfo);
    memFree(s->mem, le);
}

static int _logMatch(const aclLogEntry *a, const aclLogEntry *b) {
    long long delta = a->ctime - b->ctime;
    if (delta < 0) delta = -delta;
    return a->reason == b->reason && a->context == b->context &&
           delta <= ACL_LOG_GROUPING_MAX_TIME_DELTA &&
           !sdscmp(a->object, b->object) &&
           !sdscmp(a->username, b->username);
}

/* Moves entry j of the log to the front. */
static void _logToFront(aclState *a, long j) {
    aclLogEntry *le = a->log[j];
    memmove(&a->log[1], &a->log[0], sizeof(aclLogEntry *) * (size_t)j);
    a->log[0] = le;
}

/* Logs a denial of c's command. The object is, unless given (then the
 * log takes it): the command's full name, the key or channel at argpos,
 * or for AUTH the command as typed. The user is c's unless username is
 * given. A script's commands are logged with its caller's client. */
void addACLLogEntry(client *c, int reason, int context, int argpos,
                    sds username, sds object) {
    redisServer *s = c->srv;
    gkMem *m = s->mem;
    aclState *a = s->acl;
    aclLogEntry *le = memCalloc(m, sizeof(*le));
    char buf[LONG_STR_SIZE];
    size_t len;
    le->count = 1;
    le->reason = reason;
    le->context = context;
    le->username = username ? sdsdup(m, username)
                 : c->user ? sdsdup(m, c->user->name) : sdsempty(m);
    le->ctime = s->mstime;
    if (object) {
        le->object = object;
    } else if (reason == ACL_DENIED_CMD) {
        le->object = sdsnew(m, c->cmd->fullname);
    } else if (reason == ACL_DENIED_KEY || reason == ACL_DENIED_CHANNEL) {
        const char *p = objectStrBytes(c->argv[argpos], buf, &len);
        le->object = sdsnewlen(m, p, len);
    } else if (reason == ACL_DENIED_AUTH) {
        const char *p = objectStrBytes(c->argv[0], buf, &len);
        le->object = sdsnewlen(m, p, len);
    } else {
        le->object = sdsempty(m);
    }
    client *real = c;
    if ((c->flags & CLIENT_SCRIPT) && s->script_run)
        real = s->script_run->original_client;
    le->cinfo = catClientInfoString(s, real, sdsempty(m));
    for (long j = 0; j < a->nlog && j < 10; j++) {
        aclLogEntry *cur = a->log[j];
        if (!_logMatch(cur, le)) continue;
        _logToFront(a, j);
        sdsfree(m, cur->cinfo);
        cur->cinfo = le->cinfo;
        cur->ctime = le->ctime;
        cur->count++;
        le->cinfo = NULL;
        _logEntryFree(s, le);
        return;
    }
    if (a->nlog == a->log_cap) {
        a->log_cap = a->log_cap ? a->log_cap * 2 : 16;
        a->log = memRealloc(m, a->log, sizeof(aclLogEntry *) *
                            (size_t)a->log_cap);
    }
    memmove(&a->log[1], &a->log[0], sizeof(aclLogEntry *) *
            (size_t)a->nlog);
    a->log[0] = le;
    a->nlog++;
    while (a->nlog > s->cfg.acllog_max_len)
        _logEntryFree(s, a->log[--a->nlog]);
}

static void _logReset(redisServer *s) {
    for (long j = 0; j < s->acl->nlog; j++) _logEntryFree(s, s->acl->log[j]);
    s->acl->nlog = 0;
}

/* Frees the log (aclRelease). */
void aclLogRelease(redisServer *s) {
    _logReset(s);
    memFree(s->mem, s->acl->log);
    s->acl->log = NULL;
    s->acl->log_cap = 0;
}

static const char *_reasonName(int reason) {
    switch (reason) {
    case ACL_DENIED_CMD: return "command";
    case ACL_DENIED_KEY: return "key";
    case ACL_DENIED_CHANNEL: return "channel";
    case ACL_DENIED_AUTH: return "auth";
    default: return "unknown";
    }
}

static const char *_contextName(int context) {
    switch (context) {
    case ACL_LOG_CTX_TOPLEVEL: return "toplevel";
    case ACL_LOG_CTX_MULTI: return "multi";
    case ACL_LOG_CTX_LUA: return "lua";
    default: return "unknown";
    }
}

/* ACL LOG [<count> | RESET]: the newest count entries (10 by default),
 * each a map of 7 fields. */
void aclLogCommand(client *c) {
    redisServer *s = c->srv;
    long long count = 10;
    if (c->argc > 3) {
        addReplySubcommandSyntaxError(c);
        return;
    }
    if (c->argc == 3) {
        if (!strcasecmp(c->argv[2]->v.ptr, "reset")) {
            _logReset(s);
            addReplyOK(c);
            return;
        }
        if (getLongFromObjectOrReply(c, c->argv[2], &count, NULL) != C_OK)
            return;
        if (count < 0) count = 0;
    }
    if (count > s->acl->nlog) count = s->acl->nlog;
    addReplyArrayLen(c, count);
    for (long j = 0; j < count; j++) {
        aclLogEntry *le = s->acl->log[j];
        addReplyMapLen(c, 7);
        addReplyBulkCString(c, "count");
        addReplyLongLong(c, le->count);
        addReplyBulkCString(c, "reason");
        addReplyBulkCString(c, _reasonName(le->reason));
        addReplyBulkCString(c, "context");
        addReplyBulkCString(c, _contextName(le->context));
        addReplyBulkCString(c, "object");
        addReplyBulkCBuffer(c, le->object, sdslen(le->object));
        addReplyBulkCString(c, "username");
        addReplyBulkCBuffer(c, le->username, sdslen(le->username));
        addReplyBulkCString(c, "age-seconds");
        addReplyDouble(c, (double)(s->mstime - le->ctime) / 1000);
        addReplyBulkCString(c, "client-info");
        addReplyBulkCBuffer(c, le->cinfo, sdslen(le->cinfo));
    }
}

/* ---- AUTH ---- */

/* AUTH <password> | AUTH <username> <password>: the password form is the
 * default user's, and only makes sense when it has a password. MONITOR
 * and the slow log see the arguments redacted. */
void authCommand(client *c) {
    redisServer *s = c->srv;
    if (c->argc > 3) {
        addReplyError(c, "syntax error");
        return;
    }
    redactClientCommandArgument(c, 1);
    robj *username, *password;
    robj *dflt = createStringObject(s, "default", 7);
    if (c->argc == 2) {
        if (s->acl->default_user->flags & USER_FLAG_NOPASS) {
            decrRefCount(s, dflt);
            addReplyError(c, "AUTH <password> called without any password "
                          "configured for the default user. Are you sure "
                          "your configuration is correct?");
            return;
        }
        username = dflt;
        password = c->argv[1];
    } else {
        username = c->argv[1];
        password = c->argv[2];
        redactClientCommandArgument(c, 2);
    }
    if (aclAuthenticateUser(c, username, password) == C_OK)
        addReplyOK(c);
    else
        addReplyError(c, "-WRONGPASS invalid username-password pair or user "
                      "is disabled.");
    decrRefCount(s, dflt);
}

/* ---- ACL ---- */

/* ACL SETUSER <username> [rule ...]: creates or changes the user, with
 * every rule or none. Every argument is redacted from the slow log and
 * MONITOR, as the rules may hold passwords. */
void aclSetuserCommand(client *c) {
    redisServer *s = c->srv;
    for (int j = 2; j < c->argc; j++) redactClientCommandArgument(c, j);
    sds name = c->argv[2]->v.ptr;
    if (aclStringHasSpaces(name, sdslen(name))) {
        addReplyError(c, "Usernames can't contain spaces or null characters");
        return;
    }
    user *u = aclGetUser(s, name, sdslen(name));
    int argc = c->argc - 3;
    sds *argv = memAlloc(s->mem, sizeof(sds) * (size_t)(argc ? argc : 1));
    for (int j = 0; j < argc; j++) argv[j] = c->argv[j + 3]->v.ptr;
    sds err = aclStringSetUser(s, u, name, argv, argc);
    memFree(s->mem, argv);
    if (err) addReplyErrorSds(c, err);
    else addReplyOK(c);
}

/* ACL DELUSER <username> [...]: how many of them existed; their
 * connections are closed. The default user cannot go. */
void aclDeluserCommand(client *c) {
    redisServer *s = c->srv;
    for (int j = 2; j < c->argc; j++) {
        if (!strcmp(c->argv[j]->v.ptr, "default")) {
            addReplyError(c, "The 'default' user cannot be removed");
            return;
        }
    }
    long long deleted = 0;
    for (int j = 2; j < c->argc; j++) {
        sds name = c->argv[j]->v.ptr;
        void *u;
        if (!raxRemove(s->acl->users, (const unsigned char *)name,
                       sdslen(name), &u)) continue;
        aclFreeUserAndKillClients(s, u);
        deleted++;
    }
    addReplyLongLong(c, deleted);
}

/* A selector's commands, keys and channels: three fields of a map. */
static void _replySelector(client *c, aclSelector *sel) {
    redisServer *s = c->srv;
    gkMem *m = s->mem;
    addReplyBulkCString(c, "commands");
    addReplyBulkSds(c, aclDescribeSelectorCommands(s, sel));
    addReplyBulkCString(c, "keys");
    if (sel->flags & SELECTOR_FLAG_ALLKEYS) {
        addReplyBulkCString(c, "~*");
    } else {
        sds o = sdsempty(m);
        for (int j = 0; j < sel->nkeys; j++) {
            if (j) o = sdscat(m, o, " ");
            const aclKeyPattern *k = &sel->keys[j];
            o = sdscat(m, o, k->perm == ACL_ALL_PERMISSION ? "~" :
                       k->perm == ACL_READ_PERMISSION ? "%R~" : "%W~");
            o = sdscatsds(m, o, k->pattern);
        }
        addReplyBulkSds(c, o);
    }
    addReplyBulkCString(c, "channels");
    if (sel->flags & SELECTOR_FLAG_ALLCHANNELS) {
        addReplyBulkCString(c, "&*");
    } else {
        sds o = sdsempty(m);
        for (int j = 0; j < sel->nchannels; j++)
            o = sdscatprintf(m, o, "%s&%s", j ? " " : "", sel->channels[j]);
        addReplyBulkSds(c, o);
    }
}

/* ACL GETUSER <username>: a map of its flags (a set), passwords (their
 * hashes), the root selector's commands, keys and channels, and the
 * other selectors as maps of the same three; a null if there is no such
 * user. */
void aclGetuserCommand(client *c) {
    redisServer *s = c->srv;
    sds name = c->argv[2]->v.ptr;
    user *u = aclGetUser(s, name, sdslen(name));
    if (!u) {
        addReplyNull(c);
        return;
    }
    static const struct { const char *name; uint32_t flag; } flags[] = {
        { "on", USER_FLAG_ENABLED }, { "off", USER_FLAG_DISABLED },
        { "nopass", USER_FLAG_NOPASS },
        { "skip-sanitize-payload", USER_FLAG_SANITIZE_PAYLOAD_SKIP },
        { "sanitize-payload", USER_FLAG_SANITIZE_PAYLOAD }, { NULL, 0 } };
    addReplyMapLen(c, 6);
    addReplyBulkCString(c, "flags");
    int n = 0;
    for (int j = 0; flags[j].name; j++) n += (u->flags & flags[j].flag) != 0;
    addReplySetLen(c, n);
    for (int j = 0; flags[j].name; j++)
        if (u->flags & flags[j].flag) addReplyBulkCString(c, flags[j].name);
    addReplyBulkCString(c, "passwords");
    addReplyArrayLen(c, u->npasswords);
    for (int j = 0; j < u->npasswords; j++)
        addReplyBulkCBuffer(c, u->passwords[j], sdslen(u->passwords[j]));
    _replySelector(c, u->selectors[0]);
    addReplyBulkCString(c, "selectors");
    addReplyArrayLen(c, u->nselectors - 1);
    for (int j = 1; j < u->nselectors; j++) {
        addReplyMapLen(c, 3);
        _replySelector(c, u->selectors[j]);
    }
}

/* "user <name> <rules>": a user as a line of the ACL file, and as ACL
 * LIST shows it. */
static sds _userLine(redisServer *s, user *u) {
    sds line = sdsnew(s->mem, "user ");
    line = sdscatsds(s->mem, line, u->name);
    line = sdscat(s->mem, line, " ");
    return sdscatsds(s->mem, line, aclDescribeUser(s, u));
}

/* ACL LIST and ACL USERS: every user, in byte order of the names. */
static void _listUsers(client *c, int names_only) {
    redisServer *s = c->srv;
    addReplyArrayLen(c, (long)raxSize(s->acl->users));
    raxIterator it;
    raxStart(&it, s->acl->users);
    raxSeek(&it, "^", NULL, 0);
    while (raxNext(&it)) {
        user *u = it.data;
        if (names_only) addReplyBulkCBuffer(c, u->name, sdslen(u->name));
        else addReplyBulkSds(c, _userLine(s, u));
    }
    raxStop(&it);
}

void aclListCommand(client *c) { _listUsers(c, 0); }
void aclUsersCommand(client *c) { _listUsers(c, 1); }

/* ACL WHOAMI: the connection's user. */
void aclWhoamiCommand(client *c) {
    if (c->user) addReplyBulkCBuffer(c, c->user->name, sdslen(c->user->name));
    else addReplyNull(c);
}

/* ACL CAT [<category>]: 7.0's categories, or the commands (and
 * subcommands, as "container|sub") of one, in the table's order (Redis
 * gives them in its hash table's order). */
void aclCatCommand(client *c) {
    redisServer *s = c->srv;
    if (c->argc == 2) {
        addReplyArrayLen(c, ACL_CATEGORY_COUNT);
        for (int j = 0; j < ACL_CATEGORY_COUNT; j++)
            addReplyBulkCString(c, commandAclCategoryNames[j]);
        return;
    }
    if (c->argc > 3) {
        addReplySubcommandSyntaxError(c);
        return;
    }
    const char *name = c->argv[2]->v.ptr;
    int cat = commandAclCategoryIndex(name);
    if (cat < 0) {
        addReplyErrorFormat(c, "Unknown category '%.128s'", name);
        return;
    }
    void *len = addReplyDeferredLen(c);
    long n = 0;
    for (const redisCommand *cmd = s->cmdtable; cmd->declared_name; cmd++) {
        if (s->acl->cmd_categories[cmd->id] & (1u << cat)) {
            addReplyBulkCString(c, cmd->fullname);
            n++;
        }
        for (const redisCommand *sub = cmd->subcommands; sub &&
             sub->declared_name; sub++) {
            if (!(s->acl->cmd_categories[sub->id] & (1u << cat))) continue;
            addReplyBulkCString(c, sub->fullname);
            n++;
        }
    }
    setDeferredArrayLen(c, len, n);
}

/* ACL GENPASS [<bits>]: (bits+3)/4 random hex digits, 256 bits by
 * default. Redis reads them from /dev/urandom; here they come from the
 * world's seeded generator, like every other random choice. */
#define GENPASS_MAX_BITS 4096
void aclGenpassCommand(client *c) {
    long long bits = 256;
    if (c->argc > 3) {
        addReplySubcommandSyntaxError(c);
        return;
    }
    if (c->argc == 3 &&
        getLongFromObjectOrReply(c, c->argv[2], &bits, NULL) != C_OK) return;
    if (bits <= 0 || bits > GENPASS_MAX_BITS) {
        addReplyErrorFormat(c, "ACL GENPASS argument must be the number of "
                            "bits for the output password, a positive "
                            "number up to %d", GENPASS_MAX_BITS);
        return;
    }
    char pass[GENPASS_MAX_BITS / 4];
    long chars = (long)(bits + 3) / 4;
    for (long j = 0; j < chars; j++)
        pass[j] = "0123456789abcdef"[rngNext(c->srv->denv.rng) & 15];
    addReplyBulkCBuffer(c, pass, (size_t)chars);
}

/* ACL DRYRUN <username> <command> [<arg> ...]: whether the user could run
 * the command line, as +OK or a bulk string saying why not. */
void aclDryrunCommand(client *c) {
    redisServer *s = c->srv;
    sds name = c->argv[2]->v.ptr;
    user *u = aclGetUser(s, name, sdslen(name));
    if (!u) {
        addReplyErrorFormat(c, "User '%s' not found", name);
        return;
    }
    const redisCommand *cmd = lookupCommand(s, c->argv + 3, c->argc - 3);
    if (!cmd) {
        addReplyErrorFormat(c, "Command '%s' not found",
                            (char *)c->argv[3]->v.ptr);
        return;
    }
    int argc = c->argc - 3;
    if ((cmd->arity > 0 && cmd->arity != argc) || argc < -cmd->arity) {
        addReplyErrorFormat(c, "wrong number of arguments for '%s' command",
                            cmd->fullname);
        return;
    }
    int idx = 0;
    int r = aclCheckAllUserCommandPerm(s, u, cmd, c->argv + 3, argc, &idx);
    if (r == ACL_OK) {
        addReplyOK(c);
        return;
    }
    char buf[LONG_STR_SIZE];
    size_t len;
    sds msg;
    if (r == ACL_DENIED_CMD) {
        msg = sdscatprintf(s->mem, sdsempty(s->mem), "This user has no "
                           "permissions to run the '%s' command",
                           cmd->fullname);
    } else {
        const char *obj = objectStrBytes(c->argv[idx + 3], buf, &len);
        msg = sdscatprintf(s->mem, sdsempty(s->mem), "This user has no "
                           "permissions to access the '");
        msg = sdscatlen(s->mem, msg, obj, len);
        msg = sdscat(s->mem, msg, r == ACL_DENIED_KEY ? "' key"
                                                      : "' channel");
    }
    addReplyBulkSds(c, msg);
}

/* ACL HELP: 7.0's text. */
void aclHelpCommand(client *c) {
    static const char *help[] = {
"CAT [<category>]",
"    List all commands that belong to <category>, or all command categories",
"    when no category is specified.",
"DELUSER <username> [<username> ...]",
"    Delete a list of users.",
"DRYRUN <username> <command> [<arg> ...]",
"    Returns whether the user can execute the given command without "
"executing the command.",
"GETUSER <username>",
"    Get the user's details.",
"GENPASS [<bits>]",
"    Generate a secure 256-bit user password. The optional `bits` argument "
"can",
"    be used to specify a different size.",
"LIST",
"    Show users details in config file format.",
"LOAD",
"    Reload users from the ACL file.",
"LOG [<count> | RESET]",
"    Show the ACL log entries.",
"SAVE",
"    Save the current config to the ACL file.",
"SETUSER <username> <attribute> [<attribute> ...]",
"    Create or modify a user with the specified attributes.",
"USERS",
"    List all the registered usernames.",
"WHOAMI",
"    Return the current connection username.",
        NULL };
    addReplyHelp(c, help);
}

/* ---- The ACL file. ----
 *
 * aclfile names a file of "user <name> <rules>" lines. ACL LOAD reads it
 * whole into a new users table and, only if every line is right, puts
 * that table in place of the old one: the default user takes the new
 * rules (it is never replaced, connections point at it), the other old
 * users are freed and their connections closed. ACL SAVE writes every
 * user's line to a temporary file and renames it over the old one. Both
 * go through the server's file backend. */

/* The words of line, split at each single space as Redis splits the
 * file's lines (two spaces make an empty word, which is no rule). */
static sds *_splitSpaces(gkMem *m, const char *line, size_t len, int *n) {
    int cap = 8;
    sds *w = memAlloc(m, sizeof(sds) * (size_t)cap);
    *n = 0;
    size_t start = 0;
    for (size_t i = 0; i <= len; i++) {
        if (i < len && line[i] != ' ') continue;
        if (*n == cap) {
            cap *= 2;
            w = memRealloc(m, w, sizeof(sds) * (size_t)cap);
        }
        w[(*n)++] = sdsnewlen(m, line + start, i - start);
        start = i + 1;
    }
    return w;
}

static void _freeWords(gkMem *m, sds *w, int n) {
    for (int j = 0; j < n; j++) sdsfree(m, w[j]);
    memFree(m, w);
}

/* Whether c is one of " \t\r\n", the characters trimmed off a line. */
static int _isTrim(char ch) {
    return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n';
}

/* A rule of the file without the tabs, CRs and LFs at its ends. */
static sds _trimRule(sds r) {
    size_t a = 0, b = sdslen(r);
    while (a < b && _isTrim(r[a]) && r[a] != ' ') a++;
    while (b > a && _isTrim(r[b - 1]) && r[b - 1] != ' ') b--;
    sdsrange(r, (long)a, (long)b - 1);
    return r;
}

/* Applies one non-blank line of the file to the users table being
 * built: the errors it has are appended to *errors. */
static void _loadLine(redisServer *s, const char *line, size_t len,
                      int linenum, sds *errors) {
    gkMem *m = s->mem;
    const char *file = s->cfg.aclfile;
    int argc;
    sds *argv = _splitSpaces(m, line, len, &argc);
    if (strcmp(argv[0], "user") || argc < 2) {
        *errors = sdscatprintf(m, *errors, "%s:%d should start with user "
                               "keyword followed by the username. ", file,
                               linenum);
    } else if (aclStringHasSpaces(argv[1], sdslen(argv[1]))) {
        *errors = sdscatprintf(m, *errors, "'%s:%d: username '%s' contains "
                               "invalid characters. ", file, linenum,
                               argv[1]);
    } else {
        user *u = aclCreateUser(s, argv[1], sdslen(argv[1]));
        if (!u) {
            *errors = sdscatprintf(m, *errors, "WARNING: Duplicate user '%s' "
                                   "found on line %d. ", argv[1], linenum);
        } else {
            int merged = 0, syntax = 0;
            sds *rules = aclMergeSelectorArguments(s, argv + 2, argc - 2,
                                                   &merged, NULL);
            if (!rules)
                *errors = sdscatprintf(m, *errors, "%s:%d: Unmatched "
                                       "parenthesis in selector "
                                       "definition.", file, linenum);
            for (int j = 0; j < merged; j++) {
                rules[j] = _trimRule(rules[j]);
                int err = aclSetUser(s, u, rules[j], sdslen(rules[j]));
                if (err == ACL_ERR_UNKNOWN) {
                    *errors = sdscatprintf(m, *errors, "%s:%d: Error in "
                                           "applying operation '%s': %s. ",
                                           file, linenum, rules[j],
                                           aclSetUserErrorString(err));
                } else if (err && !syntax) {
                    *errors = sdscatprintf(m, *errors, "%s:%d: %s. ", file,
                                           linenum,
                                           aclSetUserErrorString(err));
                    syntax = 1;
                }
            }
            for (int j = 0; j < merged; j++) sdsfree(m, rules[j]);
            memFree(m, rules);
        }
    }
    _freeWords(m, argv, argc);
}

static void _freeUserKillCb(void *ctx, void *val) {
    aclFreeUserAndKillClients(ctx, val);
}

static void _freeUserCb(void *ctx, void *val) {
    aclFreeUser(ctx, val);
}

/* Loads the ACL file in place of the users (see above). NULL, or the
 * errors found, in one line (the caller frees it); then nothing
 * changed. */
static sds _loadFromFile(redisServer *s) {
    gkMem *m = s->mem;
    const char *file = s->cfg.aclfile;
    sds text = NULL;
    int r = s->fs.readFile ? s->fs.readFile(s->fs.ctx, file, m, &text)
                           : -FS_ENOENT;
    if (r < 0)
        return sdscatprintf(m, sdsempty(m), "Error loading ACLs, opening "
                            "file '%s': %s", file, aofStrerror(-r));
    rax *old = s->acl->users;
    s->acl->users = raxNew(m);
    sds errors = sdsempty(m);
    const char *p = text, *end = text + sdslen(text);
    for (int linenum = 1; p <= end; linenum++) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        const char *a = p, *b = eol ? eol : end;
        while (a < b && _isTrim(*a)) a++;
        while (b > a && _isTrim(b[-1])) b--;
        if (b > a) _loadLine(s, a, (size_t)(b - a), linenum, &errors);
        if (!eol) break;
        p = eol + 1;
    }
    sdsfree(m, text);
    if (sdslen(errors)) {
        raxFreeWithCallback(s->acl->users, _freeUserCb, s);
        s->acl->users = old;
        return sdscat(m, errors, "WARNING: ACL errors detected, no change "
                      "to the previously active ACL rules was performed");
    }
    sdsfree(m, errors);
    /* The default user stays the same object: it takes the new rules
     * (a fresh default user's if the file has none). */
    user *d = s->acl->default_user;
    user *nd = aclGetUser(s, "default", 7);
    if (nd) {
        raxRemove(s->acl->users, (const unsigned char *)"default", 7, NULL);
    } else {
        nd = aclCreateUnlinkedUser(s);
        aclSetDefaultRules(s, nd);
    }
    aclCopyUser(s, d, nd);
    aclFreeUser(s, nd);
    raxInsert(s->acl->users, (const unsigned char *)"default", 7, d, NULL);
    raxRemove(old, (const unsigned char *)"default", 7, NULL);
    raxFreeWithCallback(old, _freeUserKillCb, s);
    return NULL;
}

/* Writes every user's line to the ACL file. C_OK, or C_ERR after
 * logging why. */
static int _saveToFile(redisServer *s) {
    gkMem *m = s->mem;
    const char *file = s->cfg.aclfile;
    sds text = sdsempty(m);
    raxIterator it;
    raxStart(&it, s->acl->users);
    raxSeek(&it, "^", NULL, 0);
    while (raxNext(&it)) {
        sds line = _userLine(s, it.data);
        text = sdscatsds(m, text, line);
        text = sdscat(m, text, "\n");
        sdsfree(m, line);
    }
    raxStop(&it);
    sds tmp = sdscatprintf(m, sdsempty(m), "%s.tmp-%d-%lld", file, s->pid,
                           s->mstime);
    int ret = C_ERR;
    const char *what = "Opening temp ACL file for ACL SAVE";
    int fd = s->fs.open(s->fs.ctx, tmp, FS_O_WRONLY | FS_O_CREAT |
                        FS_O_TRUNC);
    long err = fd;
    if (fd >= 0) {
        what = "Writing ACL file for ACL SAVE";
        err = s->fs.write(s->fs.ctx, fd, text, sdslen(text));
        s->fs.close(s->fs.ctx, fd);
        if (err >= 0 && (size_t)err != sdslen(text)) err = -FS_EIO;
        if (err >= 0) {
            what = "Renaming ACL file for ACL SAVE";
            err = s->fs.rename(s->fs.ctx, tmp, file);
        }
        if (err >= 0) ret = C_OK;
        else s->fs.unlink(s->fs.ctx, tmp);
    }
    if (ret != C_OK)
        serverLog(s, LL_WARNING, "%s: %s", what, aofStrerror((int)-err));
    sdsfree(m, tmp);
    sdsfree(m, text);
    return ret;
}

static int _noAclFile(client *c) {
    if (c->srv->cfg.aclfile[0]) return 0;
    addReplyError(c, "This Redis instance is not configured to use an ACL "
                  "file. You may want to specify users via the ACL SETUSER "
                  "command and then issue a CONFIG REWRITE (assuming you "
                  "have a Redis configuration file set) in order to store "
                  "users in the Redis configuration.");
    return 1;
}

/* ACL LOAD: the users from the ACL file, or the errors found in it. */
void aclLoadCommand(client *c) {
    if (_noAclFile(c)) return;
    sds errors = _loadFromFile(c->srv);
    if (errors) addReplyErrorSds(c, errors);
    else addReplyOK(c);
}

/* ACL SAVE: the users to the ACL file. */
void aclSaveCommand(client *c) {
    if (_noAclFile(c)) return;
    if (_saveToFile(c->srv) == C_OK)
        addReplyOK(c);
    else
        addReplyError(c, "There was an error trying to save the ACLs. "
                      "Please check the server logs for more information");
}

/* ---- "user" lines of the configuration. ---- */

static int _toLoadHas(aclState *a, const char *name) {
    for (int j = 0; j < a->nto_load; j++)
        if (!strcmp(a->to_load[j][0], name)) return 1;
    return 0;
}

/* A "user <name> <rules>" line of the configuration (argv[0] is "user"),
 * checked on a scratch user and kept for aclLoadUsersAtStartup. C_OK, or
 * C_ERR with *bad the index of the argument at fault and the reason in
 * *why (aclSetUserErrorString's). A rule naming an unknown command is
 * let through here, as Redis lets it (a module might bring it). */
int aclAppendUserForLoading(redisServer *s, int argc, char **argv,
                            int *bad, const char **why) {
    gkMem *m = s->mem;
    aclState *a = s->acl;
    *why = aclSetUserErrorString(0);
    if (argc < 2 || strcasecmp(argv[0], "user")) {
        *bad = 0;
        return C_ERR;
    }
    if (_toLoadHas(a, argv[1])) {
        *bad = 1;
        *why = aclSetUserErrorString(ACL_ERR_DUPLICATE);
        return C_ERR;
    }
    sds *words = memAlloc(m, sizeof(sds) * (size_t)argc);
    for (int j = 2; j < argc; j++) words[j - 2] = sdsnew(m, argv[j]);
    int merged = 0;
    sds *rules = aclMergeSelectorArguments(s, words, argc - 2, &merged, bad);
    _freeWords(m, words, argc - 2);
    if (!rules) return C_ERR;
    user *fake = aclCreateUnlinkedUser(s);
    int ret = C_OK;
    for (int j = 0; j < merged && ret == C_OK; j++) {
        int err = aclSetUser(s, fake, rules[j], sdslen(rules[j]));
        if (err && err != ACL_ERR_UNKNOWN) {
            *bad = j;
            *why = aclSetUserErrorString(err);
            ret = C_ERR;
        }
    }
    aclFreeUser(s, fake);
    if (ret == C_OK) {
        sds *entry = memAlloc(m, sizeof(sds) * (size_t)(merged + 2));
        entry[0] = sdsnew(m, argv[1]);
        for (int j = 0; j < merged; j++) entry[j + 1] = rules[j];
        entry[merged + 1] = NULL;
        a->to_load = memRealloc(m, a->to_load, sizeof(sds *) *
                                (size_t)(a->nto_load + 1));
        a->to_load[a->nto_load++] = entry;
    } else {
        for (int j = 0; j < merged; j++) sdsfree(m, rules[j]);
    }
    memFree(m, rules);
    return ret;
}

/* Creates the users of the configuration's "user" lines (the default
 * user's line resets it first). C_OK, or C_ERR after logging the
 * first rule that fails. */
static int _loadConfiguredUsers(redisServer *s) {
    aclState *a = s->acl;
    for (int j = 0; j < a->nto_load; j++) {
        sds *rules = a->to_load[j];
        sds name = rules[0];
        if (aclStringHasSpaces(name, sdslen(name))) {
            serverLog(s, LL_WARNING, "Spaces not allowed in ACL usernames");
            return C_ERR;
        }
        user *u = aclCreateUser(s, name, sdslen(name));
        if (!u) {
            u = aclGetUser(s, name, sdslen(name));
            aclSetUser(s, u, "reset", 5);
        }
        for (int i = 1; rules[i]; i++) {
            int err = aclSetUser(s, u, rules[i], sdslen(rules[i]));
            if (!err) continue;
            serverLog(s, LL_WARNING, "Error loading ACL rule '%s' for the "
                      "user named '%s': %s", rules[i], name,
                      aclSetUserErrorString(err));
            return C_ERR;
        }
        if (u->flags & USER_FLAG_DISABLED)
            serverLog(s, LL_NOTICE, "The user '%s' is disabled (there is no "
                      "'on' modifier in the user description). Make sure "
                      "this is not a configuration error.", name);
    }
    return C_OK;
}

/* The users of the configuration, or of the ACL file, once the
 * configuration is read (serverStartup). C_OK, or C_ERR after logging
 * why the server cannot start. */
int aclLoadUsersAtStartup(redisServer *s) {
    if (s->cfg.aclfile[0] && s->acl->nto_load) {
        serverLog(s, LL_WARNING, "Configuring Redis with users defined in "
                  "redis.conf and at the same setting an ACL file path is "
                  "invalid. This setup is very likely to lead to "
                  "configuration errors and security holes, please define "
                  "either an ACL file or declare users directly in your "
                  "redis.conf, but not both.");
        return C_ERR;
    }
    if (_loadConfiguredUsers(s) != C_OK) {
        serverLog(s, LL_WARNING, "Critical error while loading ACLs. "
                  "Exiting.");
        return C_ERR;
    }
    if (s->cfg.aclfile[0]) {
        sds errors = _loadFromFile(s);
        if (errors) {
            serverLog(s, LL_WARNING, "Aborting Redis startup because of ACL "
                      "errors: %s", errors);
            sdsfree(s->mem, errors);
            return C_ERR;
        }
    }
    return C_OK;
}

/* CONFIG REWRITE's "user" lines: one per user, unless the users live in
 * an ACL file (then the old lines go). A server without ACL state (a
 * bare configuration being rewritten) has none to write. */
void aclRewriteConfig(redisServer *s, rewriteState *st) {
    if (s->acl && !s->cfg.aclfile[0]) {
        raxIterator it;
        raxStart(&it, s->acl->users);
        raxSeek(&it, "^", NULL, 0);
        while (raxNext(&it)) rewriteLine(st, "user", _userLine(s, it.data), 1);
        raxStop(&it);
    }
    rewriteMarkProcessed(st, "user");
}
