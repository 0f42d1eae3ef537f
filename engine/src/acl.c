/* acl.c -- users, their rules and the permission checks, as Redis 7.0's
 * ACL (see acl.h for the model).
 *
 * Rules are applied one at a time (aclSetUser): "on", ">password",
 * "~pattern", "+@category", "(...)" and so on. ACL SETUSER applies a
 * whole line to a copy of the user and keeps the copy only if every
 * rule was valid. ACL LIST and GETUSER describe a user back as rules;
 * the command part of that description is rebuilt from the command
 * bitmap alone, by the same best-fit search over the categories Redis
 * makes, so it reads as Redis would print it.
 *
 * Connections start as the default user, authenticated if it is on and
 * needs no password. The server's own clients (the AOF loader, the
 * master's link) have no user and may run anything; a script's commands
 * run as the user that called the script. */
#include <string.h>
#include <strings.h>
#include <stdint.h>
#include <ctype.h>
#include "acl.h"
#include "command_keys.h"
#include "sha256.h"
#include "script.h"

static int _setSelector(redisServer *s, aclSelector *sel, const char *op,
                        size_t len);

/* The user flags in the order a description lists them. */
static const struct { const char *name; uint32_t flag; } userFlagNames[] = {
    { "on", USER_FLAG_ENABLED }, { "off", USER_FLAG_DISABLED },
    { "nopass", USER_FLAG_NOPASS },
    { "skip-sanitize-payload", USER_FLAG_SANITIZE_PAYLOAD_SKIP },
    { "sanitize-payload", USER_FLAG_SANITIZE_PAYLOAD }, { NULL, 0 } };

/* Grows *arr (of elements of size elem, *cap of them) to hold n. */
static void *_reserve(gkMem *m, void *arr, int *cap, int n, size_t elem) {
    if (n <= *cap) return arr;
    int c = *cap ? *cap * 2 : 4;
    while (c < n) c *= 2;
    *cap = c;
    return memRealloc(m, arr, elem * (size_t)c);
}

/* Whether p[0..len) has a space or a NUL: names and patterns may not,
 * so that a description splits back into the same rules. */
int aclStringHasSpaces(const char *p, size_t len) {
    for (size_t i = 0; i < len; i++)
        if (isspace((unsigned char)p[i]) || p[i] == 0) return 1;
    return 0;
}

/* Whether h[0..len) is a password hash: 64 lower-case hex digits. */
static int _isPasswordHash(const char *h, size_t len) {
    if (len != SHA256_HEX_LEN) return 0;
    for (size_t i = 0; i < len; i++)
        if (!((h[i] >= '0' && h[i] <= '9') || (h[i] >= 'a' && h[i] <= 'f')))
            return 0;
    return 1;
}

static sds _hashPassword(gkMem *m, const char *p, size_t len) {
    char hex[SHA256_HEX_LEN + 1];
    sha256Hex(p, len, hex);
    return sdsnewlen(m, hex, SHA256_HEX_LEN);
}

/* ---- Commands: ids, lookups, the walk over the table. ---- */

/* Calls fn on every command of the table, each container followed by
 * its subcommands, in the table's order. Redis walks its hash table of
 * commands instead, whose order changes from one process to the next;
 * the table's order is a fixed one. */
void aclForEachCommand(redisServer *s,
                       void (*fn)(void *ctx, const redisCommand *cmd),
                       void *ctx) {
    for (const redisCommand *c = s->cmdtable; c->declared_name; c++) {
        fn(ctx, c);
        for (const redisCommand *sub = c->subcommands; sub &&
             sub->declared_name; sub++)
            fn(ctx, sub);
    }
}

static const redisCommand *_lookupPart(const redisCommand *table,
                                       const char *name, size_t len) {
    for (const redisCommand *c = table; c && c->declared_name; c++)
        if (strlen(c->declared_name) == len &&
            !strncasecmp(c->declared_name, name, len)) return c;
    return NULL;
}

/* A command by its full name ("get", "config|get", case ignored), as ACL
 * rules name them: a container alone, or one of its subcommands; a name
 * with more parts, or a first argument of a command without
 * subcommands, is no command. NULL if there is none. */
const redisCommand *aclLookupCommand(redisServer *s, const char *name) {
    const char *bar = strchr(name, '|');
    size_t len = bar ? (size_t)(bar - name) : strlen(name);
    const redisCommand *c = _lookupPart(s->cmdtable, name, len);
    if (!c || !bar) return c;
    if (strchr(bar + 1, '|') || !c->subcommands) return NULL;
    return _lookupPart(c->subcommands, bar + 1, strlen(bar + 1));
}

static int _isSubcommand(const redisCommand *cmd) {
    return strchr(cmd->fullname, '|') != NULL;
}

static uint32_t _categories(redisServer *s, const redisCommand *cmd) {
    return s->acl->cmd_categories[cmd->id];
}

/* ---- Selectors. ---- */

static aclSelector *_selectorCreate(redisServer *s, uint32_t flags) {
    aclSelector *sel = memCalloc(s->mem, sizeof(*sel));
    sel->flags = flags | (uint32_t)s->cfg.acl_pubsub_default;
    return sel;
}

static void _firstargsResetFor(redisServer *s, aclSelector *sel, int id) {
    if (!sel->firstargs || !sel->firstargs[id]) return;
    for (int i = 0; sel->firstargs[id][i]; i++)
        sdsfree(s->mem, sel->firstargs[id][i]);
    memFree(s->mem, sel->firstargs[id]);
    sel->firstargs[id] = NULL;
}

/* Drops every first argument: +@all and -@all start over. */
static void _firstargsReset(redisServer *s, aclSelector *sel) {
    if (!sel->firstargs) return;
    for (int id = 0; id < ACL_COMMAND_BITS; id++)
        _firstargsResetFor(s, sel, id);
    memFree(s->mem, sel->firstargs);
    sel->firstargs = NULL;
}

/* Allows command id when its first argument is arg (case ignored). */
static void _firstargsAdd(redisServer *s, aclSelector *sel, int id,
                          const char *arg) {
    if (!sel->firstargs)
        sel->firstargs = memCalloc(s->mem, sizeof(sds *) * ACL_COMMAND_BITS);
    int n = 0;
    for (sds *list = sel->firstargs[id]; list && list[n]; n++)
        if (!strcasecmp(list[n], arg)) return;
    sel->firstargs[id] = memRealloc(s->mem, sel->firstargs[id],
                                    sizeof(sds) * (size_t)(n + 2));
    sel->firstargs[id][n] = sdsnew(s->mem, arg);
    sel->firstargs[id][n + 1] = NULL;
}

static void _keysClear(redisServer *s, aclSelector *sel) {
    for (int j = 0; j < sel->nkeys; j++)
        sdsfree(s->mem, sel->keys[j].pattern);
    sel->nkeys = 0;
}

static void _channelsClear(redisServer *s, aclSelector *sel) {
    for (int j = 0; j < sel->nchannels; j++)
        sdsfree(s->mem, sel->channels[j]);
    sel->nchannels = 0;
}

static void _selectorFree(redisServer *s, aclSelector *sel) {
    _keysClear(s, sel);
    _channelsClear(s, sel);
    memFree(s->mem, sel->keys);
    memFree(s->mem, sel->channels);
    _firstargsReset(s, sel);
    memFree(s->mem, sel);
}

static aclSelector *_selectorCopy(redisServer *s, const aclSelector *src) {
    aclSelector *dst = memCalloc(s->mem, sizeof(*dst));
    dst->flags = src->flags;
    memcpy(dst->allowed, src->allowed, sizeof(dst->allowed));
    for (int j = 0; j < src->nkeys; j++) {
        dst->keys = _reserve(s->mem, dst->keys, &dst->keys_cap,
                             dst->nkeys + 1, sizeof(aclKeyPattern));
        dst->keys[dst->nkeys].perm = src->keys[j].perm;
        dst->keys[dst->nkeys++].pattern = sdsdup(s->mem,
                                                 src->keys[j].pattern);
    }
    for (int j = 0; j < src->nchannels; j++) {
        dst->channels = _reserve(s->mem, dst->channels, &dst->channels_cap,
                                 dst->nchannels + 1, sizeof(sds));
        dst->channels[dst->nchannels++] = sdsdup(s->mem, src->channels[j]);
    }
    for (int id = 0; src->firstargs && id < ACL_COMMAND_BITS; id++)
        for (int i = 0; src->firstargs[id] && src->firstargs[id][i]; i++)
            _firstargsAdd(s, dst, id, src->firstargs[id][i]);
    return dst;
}

static int _bitGet(const aclSelector *sel, int id) {
    if (id < 0 || id >= ACL_COMMAND_BITS) return 0;
    return (sel->allowed[id / 64] >> (id % 64)) & 1;
}

/* Clearing a bit also clears ALLCOMMANDS: the selector no longer
 * allows everything. */
static void _bitSet(aclSelector *sel, int id, int value) {
    if (id < 0 || id >= ACL_COMMAND_BITS) return;
    if (value) {
        sel->allowed[id / 64] |= 1ULL << (id % 64);
    } else {
        sel->allowed[id / 64] &= ~(1ULL << (id % 64));
        sel->flags &= ~(uint32_t)SELECTOR_FLAG_ALLCOMMANDS;
    }
}

/* Allows or denies cmd, and with a container all its subcommands; its
 * first arguments go. */
static void _changePerm(redisServer *s, aclSelector *sel,
                        const redisCommand *cmd, int allow) {
    _bitSet(sel, cmd->id, allow);
    _firstargsResetFor(s, sel, cmd->id);
    for (const redisCommand *sub = cmd->subcommands; sub &&
         sub->declared_name; sub++)
        _bitSet(sel, sub->id, allow);
}

/* +@category / -@category: every command of the category, a container
 * with all its subcommands (containers are in @slow), then each
 * subcommand of the category on its own. */
static void _setCategory(redisServer *s, aclSelector *sel, int cat,
                         int allow) {
    uint32_t bit = 1u << cat;
    for (const redisCommand *c = s->cmdtable; c->declared_name; c++) {
        if (_categories(s, c) & bit) _changePerm(s, sel, c, allow);
        for (const redisCommand *sub = c->subcommands; sub &&
             sub->declared_name; sub++)
            if (_categories(s, sub) & bit) _changePerm(s, sel, sub, allow);
    }
}

/* How many commands of category cat the bitmap allows and denies. */
typedef struct catCount {
    redisServer *s;
    const aclSelector *sel;
    uint32_t bit;
    unsigned long on, off;
} catCount;

static void _countOne(void *ctx, const redisCommand *cmd) {
    catCount *cc = ctx;
    if (!(_categories(cc->s, cmd) & cc->bit)) return;
    if (_bitGet(cc->sel, cmd->id)) cc->on++;
    else cc->off++;
}

static void _countCategory(redisServer *s, const aclSelector *sel, int cat,
                           unsigned long *on, unsigned long *off) {
    catCount cc = { s, sel, 1u << cat, 0, 0 };
    aclForEachCommand(s, _countOne, &cc);
    *on = cc.on;
    *off = cc.off;
}

/* ---- Describing a selector's commands. ----
 *
 * The rules are rebuilt from the bitmap. They start with +@all when the
 * selector was built from +@all (its reserved bit is set), -@all
 * otherwise. Then, over and over, the category that best fits what is
 * left is applied: the one with more commands to keep than to change,
 * and among those the fewest to change, then the most kept. A scratch
 * copy of the bitmap has each category applied in reverse, so that a
 * category is judged on what the previous ones have not explained. Last,
 * single commands fix what the categories got wrong, found by applying
 * the rules so far to a second scratch selector and comparing bit by
 * bit; then the first arguments of commands otherwise denied. This is
 * Redis's algorithm; the descriptions match it except for the order of
 * the single commands, which Redis takes from its hash table. */

typedef struct describeCtx {
    redisServer *s;
    const aclSelector *sel;
    aclSelector *fake;
    sds rules;
} describeCtx;

static void _describeSingle(void *ctx, const redisCommand *cmd) {
    describeCtx *d = ctx;
    redisServer *s = d->s;
    int userbit = _bitGet(d->sel, cmd->id);
    if (userbit != _bitGet(d->fake, cmd->id)) {
        d->rules = sdscatprintf(s->mem, d->rules, "%c%s ",
                                userbit ? '+' : '-', cmd->fullname);
        _changePerm(s, d->fake, cmd, userbit);
    }
}

static void _describeFirstargs(void *ctx, const redisCommand *cmd) {
    describeCtx *d = ctx;
    const aclSelector *sel = d->sel;
    if (_bitGet(sel, cmd->id) || !sel->firstargs ||
        !sel->firstargs[cmd->id]) return;
    for (int j = 0; sel->firstargs[cmd->id][j]; j++)
        d->rules = sdscatprintf(d->s->mem, d->rules, "+%s|%s ",
                                cmd->fullname, sel->firstargs[cmd->id][j]);
}

/* The best category for what tmp has left, or -1. */
static int _bestCategory(redisServer *s, const aclSelector *tmp,
                         const char *applied, int additive) {
    int best = -1;
    unsigned long mindiff = ~0UL, maxsame = 0;
    for (int j = 0; j < ACL_CATEGORY_COUNT; j++) {
        if (applied[j]) continue;
        unsigned long on, off;
        _countCategory(s, tmp, j, &on, &off);
        unsigned long diff = additive ? off : on;
        unsigned long same = additive ? on : off;
        if (same > diff &&
            (diff < mindiff || (diff == mindiff && same > maxsame))) {
            best = j;
            mindiff = diff;
            maxsame = same;
        }
    }
    return best;
}

/* The rules that rebuild sel's commands, as ACL GETUSER's "commands"
 * shows them ("+@all -@dangerous +info"). The caller frees it. */
sds aclDescribeSelectorCommands(redisServer *s, aclSelector *sel) {
    int additive = !_bitGet(sel, ACL_FUTURE_COMMANDS_BIT);
    aclSelector fake = { 0 }, tmp = { 0 };
    describeCtx d = { s, sel, &fake, sdsempty(s->mem) };
    d.rules = sdscat(s->mem, d.rules, additive ? "-@all " : "+@all ");
    _setSelector(s, &fake, additive ? "-@all" : "+@all", 5);
    memcpy(tmp.allowed, sel->allowed, sizeof(tmp.allowed));
    char applied[ACL_CATEGORY_COUNT] = { 0 };
    int best;
    while ((best = _bestCategory(s, &tmp, applied, additive)) != -1) {
        _setCategory(s, &fake, best, additive);
        _setCategory(s, &tmp, best, !additive);
        d.rules = sdscatprintf(s->mem, d.rules, "%c@%s ",
                               additive ? '+' : '-',
                               commandAclCategoryNames[best]);
        applied[best] = 1;
    }
    for (const redisCommand *c = s->cmdtable; c->declared_name; c++) {
        _describeSingle(&d, c);
        for (const redisCommand *sub = c->subcommands; sub &&
             sub->declared_name; sub++)
            _describeSingle(&d, sub);
        _describeFirstargs(&d, c);
    }
    sdsrange(d.rules, 0, -2);
    _firstargsReset(s, &fake);
    _firstargsReset(s, &tmp);
    return d.rules;
}

/* A key pattern as a rule: "~p", "%R~p" or "%W~p". */
static sds _catKeyPattern(gkMem *m, sds o, const aclKeyPattern *k) {
    if (k->perm == ACL_ALL_PERMISSION) o = sdscat(m, o, "~");
    else if (k->perm == ACL_READ_PERMISSION) o = sdscat(m, o, "%R~");
    else o = sdscat(m, o, "%W~");
    return sdscatsds(m, o, k->pattern);
}

/* The selector's keys, channels and commands as rules. */
static sds _describeSelector(redisServer *s, aclSelector *sel) {
    gkMem *m = s->mem;
    sds o = sdsempty(m);
    if (sel->flags & SELECTOR_FLAG_ALLKEYS) {
        o = sdscat(m, o, "~* ");
    } else {
        for (int j = 0; j < sel->nkeys; j++) {
            o = _catKeyPattern(m, o, &sel->keys[j]);
            o = sdscat(m, o, " ");
        }
    }
    if (sel->flags & SELECTOR_FLAG_ALLCHANNELS) {
        o = sdscat(m, o, "&* ");
    } else {
        o = sdscat(m, o, "resetchannels ");
        for (int j = 0; j < sel->nchannels; j++)
            o = sdscatprintf(m, o, "&%s ", sel->channels[j]);
    }
    sds rules = aclDescribeSelectorCommands(s, sel);
    o = sdscatsds(m, o, rules);
    sdsfree(m, rules);
    return o;
}

/* The user as rules that would make it again, as ACL LIST shows it
 * after "user <name> ": flags, password hashes, the root selector's
 * rules, then each other selector in parentheses. The user keeps the
 * text until it changes; the caller must not free it. */
sds aclDescribeUser(redisServer *s, user *u) {
    if (u->description) return u->description;
    gkMem *m = s->mem;
    sds o = sdsempty(m);
    for (int j = 0; userFlagNames[j].name; j++)
        if (u->flags & userFlagNames[j].flag)
            o = sdscatprintf(m, o, "%s ", userFlagNames[j].name);
    for (int j = 0; j < u->npasswords; j++)
        o = sdscatprintf(m, o, "#%s ", u->passwords[j]);
    for (int j = 0; j < u->nselectors; j++) {
        sds d = _describeSelector(s, u->selectors[j]);
        if (j == 0) o = sdscatsds(m, o, d);
        else o = sdscatprintf(m, o, " (%s)", d);
        sdsfree(m, d);
    }
    u->description = o;
    return o;
}

/* ---- Rules. ---- */

/* A key pattern rule: "~p", or "%R~p", "%W~p", "%RW~p". Redis takes
 * "%R" without a '~' as the empty pattern; a '%' granting nothing would
 * be a pattern it cannot print back (it aborts), so it is refused here
 * as a syntax error instead. */
static int _addKeyPattern(redisServer *s, aclSelector *sel, const char *op,
                          size_t len) {
    if (sel->flags & SELECTOR_FLAG_ALLKEYS) return ACL_ERR_KEYS_ALL;
    int perm = 0;
    size_t off = 1;
    if (op[0] == '%') {
        for (; off < len; off++) {
            char ch = (char)toupper((unsigned char)op[off]);
            if (ch == 'R' && !(perm & ACL_READ_PERMISSION)) {
                perm |= ACL_READ_PERMISSION;
            } else if (ch == 'W' && !(perm & ACL_WRITE_PERMISSION)) {
                perm |= ACL_WRITE_PERMISSION;
            } else if (op[off] == '~') {
                off++;
                break;
            } else {
                return ACL_ERR_SYNTAX;
            }
        }
        if (!perm) return ACL_ERR_SYNTAX;
    } else {
        perm = ACL_ALL_PERMISSION;
    }
    if (aclStringHasSpaces(op + off, len - off)) return ACL_ERR_SYNTAX;
    sel->flags &= ~(uint32_t)SELECTOR_FLAG_ALLKEYS;
    for (int j = 0; j < sel->nkeys; j++) {
        sds p = sel->keys[j].pattern;
        if (sdslen(p) == len - off && !memcmp(p, op + off, len - off)) {
            sel->keys[j].perm |= perm;
            return 0;
        }
    }
    sel->keys = _reserve(s->mem, sel->keys, &sel->keys_cap, sel->nkeys + 1,
                         sizeof(aclKeyPattern));
    sel->keys[sel->nkeys].perm = perm;
    sel->keys[sel->nkeys++].pattern = sdsnewlen(s->mem, op + off, len - off);
    return 0;
}

static int _addChannelPattern(redisServer *s, aclSelector *sel,
                              const char *op, size_t len) {
    if (sel->flags & SELECTOR_FLAG_ALLCHANNELS) return ACL_ERR_CHANNELS_ALL;
    if (aclStringHasSpaces(op + 1, len - 1)) return ACL_ERR_SYNTAX;
    sel->flags &= ~(uint32_t)SELECTOR_FLAG_ALLCHANNELS;
    for (int j = 0; j < sel->nchannels; j++) {
        sds p = sel->channels[j];
        if (sdslen(p) == len - 1 && !memcmp(p, op + 1, len - 1)) return 0;
    }
    sel->channels = _reserve(s->mem, sel->channels, &sel->channels_cap,
                             sel->nchannels + 1, sizeof(sds));
    sel->channels[sel->nchannels++] = sdsnewlen(s->mem, op + 1, len - 1);
    return 0;
}

/* "+cmd", "+container|sub", or "+cmd|firstarg" for a command without
 * subcommands (a misuse Redis still accepts, with a warning). */
static int _allowCommandRule(redisServer *s, aclSelector *sel,
                             const char *name) {
    const char *bar = strrchr(name, '|');
    if (!bar) {
        const redisCommand *cmd = aclLookupCommand(s, name);
        if (!cmd) return ACL_ERR_UNKNOWN;
        _changePerm(s, sel, cmd, 1);
        return 0;
    }
    sds base = sdsnewlen(s->mem, name, (size_t)(bar - name));
    const redisCommand *cmd = aclLookupCommand(s, base);
    sdsfree(s->mem, base);
    if (!cmd) return ACL_ERR_UNKNOWN;
    if (_isSubcommand(cmd)) return ACL_ERR_FIRSTARG_SUB;
    if (bar[1] == '\0') return ACL_ERR_SYNTAX;
    if (cmd->subcommands) {
        cmd = aclLookupCommand(s, name);
        if (!cmd) return ACL_ERR_UNKNOWN;
        _changePerm(s, sel, cmd, 1);
        return 0;
    }
    serverLog(s, LL_WARNING, "Deprecation warning: Allowing a first arg of "
              "an otherwise blocked command is a misuse of ACL and may get "
              "disabled in the future (offender: %s)", name);
    _firstargsAdd(s, sel, cmd->id, bar + 1);
    return 0;
}

/* Applies one rule about commands, keys or channels to sel. 0, or an
 * ACL_ERR_* code. */
static int _setSelector(redisServer *s, aclSelector *sel, const char *op,
                        size_t len) {
    if (!strcasecmp(op, "allkeys") || !strcasecmp(op, "~*")) {
        sel->flags |= SELECTOR_FLAG_ALLKEYS;
        _keysClear(s, sel);
    } else if (!strcasecmp(op, "resetkeys")) {
        sel->flags &= ~(uint32_t)SELECTOR_FLAG_ALLKEYS;
        _keysClear(s, sel);
    } else if (!strcasecmp(op, "allchannels") || !strcasecmp(op, "&*")) {
        sel->flags |= SELECTOR_FLAG_ALLCHANNELS;
        _channelsClear(s, sel);
    } else if (!strcasecmp(op, "resetchannels")) {
        sel->flags &= ~(uint32_t)SELECTOR_FLAG_ALLCHANNELS;
        _channelsClear(s, sel);
    } else if (!strcasecmp(op, "allcommands") || !strcasecmp(op, "+@all")) {
        memset(sel->allowed, 0xff, sizeof(sel->allowed));
        sel->flags |= SELECTOR_FLAG_ALLCOMMANDS;
        _firstargsReset(s, sel);
    } else if (!strcasecmp(op, "nocommands") || !strcasecmp(op, "-@all")) {
        memset(sel->allowed, 0, sizeof(sel->allowed));
        sel->flags &= ~(uint32_t)SELECTOR_FLAG_ALLCOMMANDS;
        _firstargsReset(s, sel);
    } else if (op[0] == '~' || op[0] == '%') {
        return _addKeyPattern(s, sel, op, len);
    } else if (op[0] == '&') {
        return _addChannelPattern(s, sel, op, len);
    } else if (op[0] == '+' && op[1] != '@') {
        return _allowCommandRule(s, sel, op + 1);
    } else if (op[0] == '-' && op[1] != '@') {
        const redisCommand *cmd = aclLookupCommand(s, op + 1);
        if (!cmd) return ACL_ERR_UNKNOWN;
        _changePerm(s, sel, cmd, 0);
    } else if ((op[0] == '+' || op[0] == '-') && op[1] == '@') {
        int cat = commandAclCategoryIndex(op + 2);
        if (cat < 0) return ACL_ERR_UNKNOWN;
        _setCategory(s, sel, cat, op[0] == '+');
    } else {
        return ACL_ERR_SYNTAX;
    }
    return 0;
}

/* A "(...)" rule: a new selector with the rules inside, split as a
 * command line is; NULL (with *err) if one of them is wrong. */
static aclSelector *_selectorFromOpSet(redisServer *s, const char *op,
                                       size_t len, int *err) {
    aclSelector *sel = _selectorCreate(s, 0);
    sds inner = sdsnewlen(s->mem, op + 1, len - 2);
    sds *argv;
    int argc = splitArgs(s, inner, &argv);
    *err = 0;
    for (int j = 0; j < argc && !*err; j++)
        *err = _setSelector(s, sel, argv[j], sdslen(argv[j]));
    if (argc >= 0) splitArgsRelease(s, argv, argc);
    sdsfree(s->mem, inner);
    if (*err) {
        _selectorFree(s, sel);
        return NULL;
    }
    return sel;
}

static void _passwordsClear(redisServer *s, user *u) {
    for (int j = 0; j < u->npasswords; j++)
        sdsfree(s->mem, u->passwords[j]);
    u->npasswords = 0;
}

static int _findPassword(user *u, sds hash) {
    for (int j = 0; j < u->npasswords; j++)
        if (!sdscmp(u->passwords[j], hash)) return j;
    return -1;
}

/* ">pass" and "#hash" add a password; "<pass" and "!hash" remove one. */
static int _passwordRule(redisServer *s, user *u, const char *op,
                         size_t len) {
    sds hash;
    if (op[0] == '>' || op[0] == '<') {
        hash = _hashPassword(s->mem, op + 1, len - 1);
    } else {
        if (!_isPasswordHash(op + 1, len - 1)) return ACL_ERR_BAD_HASH;
        hash = sdsnewlen(s->mem, op + 1, len - 1);
    }
    int at = _findPassword(u, hash);
    if (op[0] == '>' || op[0] == '#') {
        if (at < 0) {
            u->passwords = memRealloc(s->mem, u->passwords,
                                      sizeof(sds) *
                                      (size_t)(u->npasswords + 1));
            u->passwords[u->npasswords++] = hash;
        } else {
            sdsfree(s->mem, hash);
        }
        u->flags &= ~(uint32_t)USER_FLAG_NOPASS;
        return 0;
    }
    sdsfree(s->mem, hash);
    if (at < 0) return ACL_ERR_NO_PASSWORD;
    sdsfree(s->mem, u->passwords[at]);
    memmove(&u->passwords[at], &u->passwords[at + 1],
            sizeof(sds) * (size_t)(u->npasswords - at - 1));
    u->npasswords--;
    return 0;
}

static void _clearSelectors(redisServer *s, user *u) {
    for (int j = 1; j < u->nselectors; j++)
        _selectorFree(s, u->selectors[j]);
    u->nselectors = 1;
}

static void _setFlags(user *u, uint32_t set, uint32_t clear) {
    u->flags = (u->flags | set) & ~clear;
}

/* Applies one rule (op, len bytes, NUL-terminated) to u: a user flag, a
 * password, a selector, "reset", or a rule of the root selector. 0, or
 * an ACL_ERR_* code (aclSetUserErrorString tells it); the user may be
 * half changed then, which is why ACL SETUSER works on a copy. */
int aclSetUser(redisServer *s, user *u, const char *op, size_t len) {
    sdsfree(s->mem, u->description);
    u->description = NULL;
    if (len == 0) return 0;
    if (!strcasecmp(op, "on")) {
        _setFlags(u, USER_FLAG_ENABLED, USER_FLAG_DISABLED);
    } else if (!strcasecmp(op, "off")) {
        _setFlags(u, USER_FLAG_DISABLED, USER_FLAG_ENABLED);
    } else if (!strcasecmp(op, "skip-sanitize-payload")) {
        _setFlags(u, USER_FLAG_SANITIZE_PAYLOAD_SKIP,
                  USER_FLAG_SANITIZE_PAYLOAD);
    } else if (!strcasecmp(op, "sanitize-payload")) {
        _setFlags(u, USER_FLAG_SANITIZE_PAYLOAD,
                  USER_FLAG_SANITIZE_PAYLOAD_SKIP);
    } else if (!strcasecmp(op, "nopass")) {
        u->flags |= USER_FLAG_NOPASS;
        _passwordsClear(s, u);
    } else if (!strcasecmp(op, "resetpass")) {
        u->flags &= ~(uint32_t)USER_FLAG_NOPASS;
        _passwordsClear(s, u);
    } else if (op[0] == '>' || op[0] == '#' || op[0] == '<' ||
               op[0] == '!') {
        return _passwordRule(s, u, op, len);
    } else if (op[0] == '(' && op[len - 1] == ')') {
        int err;
        aclSelector *sel = _selectorFromOpSet(s, op, len, &err);
        if (!sel) return err;
        u->selectors = memRealloc(s->mem, u->selectors, sizeof(aclSelector *)
                                  * (size_t)(u->nselectors + 1));
        u->selectors[u->nselectors++] = sel;
    } else if (!strcasecmp(op, "clearselectors")) {
        _clearSelectors(s, u);
    } else if (!strcasecmp(op, "reset")) {
        static const char *const reset[] = { "resetpass", "resetkeys",
            "resetchannels", "off", "sanitize-payload", "clearselectors",
            "-@all", NULL };
        for (int j = 0; reset[j]; j++) {
            aclSetUser(s, u, reset[j], strlen(reset[j]));
            if (j == 2 && (s->cfg.acl_pubsub_default &
                           SELECTOR_FLAG_ALLCHANNELS))
                aclSetUser(s, u, "allchannels", 11);
        }
    } else {
        return _setSelector(s, u->selectors[0], op, len);
    }
    return 0;
}

/* The text of an ACL_ERR_* code, as Redis words it. */
const char *aclSetUserErrorString(int err) {
    switch (err) {
    case ACL_ERR_UNKNOWN: return "Unknown command or category name in ACL";
    case ACL_ERR_SYNTAX: return "Syntax error";
    case ACL_ERR_KEYS_ALL:
        return "Adding a pattern after the * pattern (or the 'allkeys' "
               "flag) is not valid and does not have any effect. Try "
               "'resetkeys' to start with an empty list of patterns";
    case ACL_ERR_CHANNELS_ALL:
        return "Adding a pattern after the * pattern (or the 'allchannels' "
               "flag) is not valid and does not have any effect. Try "
               "'resetchannels' to start with an empty list of channels";
    case ACL_ERR_NO_PASSWORD:
        return "The password you are trying to remove from the user does "
               "not exist";
    case ACL_ERR_BAD_HASH:
        return "The password hash must be exactly 64 characters and "
               "contain only lowercase hexadecimal characters";
    case ACL_ERR_DUPLICATE:
        return "Duplicate user found. A user can only be defined once in "
               "config files";
    case ACL_ERR_FIRSTARG_SUB:
        return "Allowing first-arg of a subcommand is not supported";
    default: return "Wrong format";
    }
}

/* ---- Users. ---- */

static user *_userNew(redisServer *s, const char *name, size_t len) {
    user *u = memCalloc(s->mem, sizeof(*u));
    u->name = sdsnewlen(s->mem, name, len);
    u->flags = USER_FLAG_DISABLED;
    u->selectors = memAlloc(s->mem, sizeof(aclSelector *));
    u->selectors[0] = _selectorCreate(s, SELECTOR_FLAG_ROOT);
    u->nselectors = 1;
    return u;
}

/* A new user, off, with no password and no permissions, in the users
 * table; NULL if one of that name exists. */
user *aclCreateUser(redisServer *s, const char *name, size_t len) {
    if (aclGetUser(s, name, len)) return NULL;
    user *u = _userNew(s, name, len);
    raxInsert(s->acl->users, (const unsigned char *)name, len, u, NULL);
    return u;
}

/* A user outside the users table, to try rules on. */
user *aclCreateUnlinkedUser(redisServer *s) {
    return _userNew(s, "", 0);
}

/* Frees u (which must not be in the users table any more). */
void aclFreeUser(redisServer *s, user *u) {
    sdsfree(s->mem, u->name);
    sdsfree(s->mem, u->description);
    _passwordsClear(s, u);
    memFree(s->mem, u->passwords);
    for (int j = 0; j < u->nselectors; j++)
        _selectorFree(s, u->selectors[j]);
    memFree(s->mem, u->selectors);
    memFree(s->mem, u);
}

/* dst gets src's flags, passwords and selectors; it keeps its name. */
void aclCopyUser(redisServer *s, user *dst, user *src) {
    _passwordsClear(s, dst);
    for (int j = 0; j < dst->nselectors; j++)
        _selectorFree(s, dst->selectors[j]);
    dst->passwords = memRealloc(s->mem, dst->passwords, sizeof(sds) *
                                (size_t)(src->npasswords + 1));
    for (int j = 0; j < src->npasswords; j++)
        dst->passwords[j] = sdsdup(s->mem, src->passwords[j]);
    dst->npasswords = src->npasswords;
    dst->selectors = memRealloc(s->mem, dst->selectors,
                                sizeof(aclSelector *) *
                                (size_t)src->nselectors);
    for (int j = 0; j < src->nselectors; j++)
        dst->selectors[j] = _selectorCopy(s, src->selectors[j]);
    dst->nselectors = src->nselectors;
    dst->flags = src->flags;
    sdsfree(s->mem, dst->description);
    dst->description = src->description ? sdsdup(s->mem, src->description)
                                         : NULL;
}

/* Gives u the default user's rules as a fresh server has them: on,
 * nopass, every key, channel and command. */
void aclSetDefaultRules(redisServer *s, user *u) {
    static const char *const rules[] = { "+@all", "~*", "&*", "on",
                                         "nopass", NULL };
    for (int j = 0; rules[j]; j++)
        aclSetUser(s, u, rules[j], strlen(rules[j]));
}

/* The default user, in the users table. */
user *aclCreateDefaultUser(redisServer *s) {
    user *u = aclCreateUser(s, "default", 7);
    aclSetDefaultRules(s, u);
    return u;
}

user *aclGetUser(redisServer *s, const char *name, size_t len) {
    void *u;
    if (!raxFind(s->acl->users, (const unsigned char *)name, len, &u))
        return NULL;
    return u;
}

/* The connections authenticated as u go: they fall back to the default
 * user, unauthenticated, and are closed; the one running this command
 * once its reply is written. Then u is freed. */
void aclFreeUserAndKillClients(redisServer *s, user *u) {
    for (int fd = 0; fd < s->clients_cap; fd++) {
        client *c = s->clients[fd];
        if (!c || c->user != u) continue;
        c->user = s->acl->default_user;
        c->authenticated = 0;
        if (c == s->current_client) c->flags |= CLIENT_CLOSE_AFTER_COMMAND;
        else freeClientAsync(c);
    }
    aclFreeUser(s, u);
}

/* Sets up the users table with the default user (serverCreate). */
void aclInit(redisServer *s) {
    s->acl = memCalloc(s->mem, sizeof(aclState));
    s->acl->users = raxNew(s->mem);
    s->acl->cmd_categories = memCalloc(s->mem, sizeof(uint32_t) *
                                       (size_t)s->ncommands);
    for (const redisCommand *c = s->cmdtable; c->declared_name; c++) {
        s->acl->cmd_categories[c->id] =
            commandAclCategories(commandMetaLookup(c->fullname));
        for (const redisCommand *sub = c->subcommands; sub &&
             sub->declared_name; sub++)
            s->acl->cmd_categories[sub->id] =
                commandAclCategories(commandMetaLookup(sub->fullname));
    }
    s->acl->default_user = aclCreateDefaultUser(s);
}

static void _freeUserCb(void *ctx, void *val) {
    aclFreeUser(ctx, val);
}

void aclRelease(redisServer *s) {
    if (!s->acl) return;
    raxFreeWithCallback(s->acl->users, _freeUserCb, s);
    aclLogRelease(s);
    for (int j = 0; j < s->acl->nto_load; j++) {
        for (int i = 0; s->acl->to_load[j][i]; i++)
            sdsfree(s->mem, s->acl->to_load[j][i]);
        memFree(s->mem, s->acl->to_load[j]);
    }
    memFree(s->mem, s->acl->to_load);
    memFree(s->mem, s->acl->cmd_categories);
    memFree(s->mem, s->acl);
    s->acl = NULL;
}

/* ---- ACL SETUSER's line. ---- */

/* The rules of a line with each "(...)" selector made one argument,
 * though its rules were given as several ("(~key" "+get)"): a new array
 * of new strings (*merged of them). NULL if a '(' is never closed, with
 * *bad set to its argument's index. */
sds *aclMergeSelectorArguments(redisServer *s, sds *argv, int argc,
                               int *merged, int *bad) {
    sds *out = memAlloc(s->mem, sizeof(sds) * (size_t)(argc ? argc : 1));
    sds sel = NULL;
    int open = -1;
    *merged = 0;
    for (int j = 0; j < argc; j++) {
        const char *op = argv[j];
        size_t len = sdslen(argv[j]);
        if (op[0] == '(' && op[len - 1] != ')') {
            sdsfree(s->mem, sel);
            sel = sdsdup(s->mem, argv[j]);
            open = j;
            continue;
        }
        if (open != -1) {
            sel = sdscat(s->mem, sel, " ");
            sel = sdscatsds(s->mem, sel, argv[j]);
            if (len && op[len - 1] == ')') {
                open = -1;
                out[(*merged)++] = sel;
                sel = NULL;
            }
            continue;
        }
        out[(*merged)++] = sdsdup(s->mem, argv[j]);
    }
    if (open == -1) return out;
    for (int j = 0; j < *merged; j++) sdsfree(s->mem, out[j]);
    memFree(s->mem, out);
    sdsfree(s->mem, sel);
    if (bad) *bad = open;
    return NULL;
}

/* Whether u's channel patterns (all selectors') are a superset of
 * orig's: then no subscriber of orig can have lost a permission. */
static int _channelsSuperset(user *u, user *orig) {
    for (int j = 0; j < orig->nselectors; j++) {
        aclSelector *o = orig->selectors[j];
        if (o->flags & SELECTOR_FLAG_ALLCHANNELS) return 0;
        for (int c = 0; c < o->nchannels; c++) {
            int found = 0;
            for (int k = 0; k < u->nselectors && !found; k++)
                for (int i = 0; i < u->selectors[k]->nchannels; i++)
                    if (!sdscmp(u->selectors[k]->channels[i],
                                o->channels[c])) found = 1;
            if (!found) return 0;
        }
    }
    return 1;
}

/* Whether channel (a pattern when is_pattern: then only the same
 * pattern matches it) is among u's channel patterns, of any selector. */
static int _channelInUser(user *u, const char *ch, size_t len,
                          int is_pattern) {
    for (int k = 0; k < u->nselectors; k++) {
        aclSelector *sel = u->selectors[k];
        for (int i = 0; i < sel->nchannels; i++) {
            sds p = sel->channels[i];
            if (is_pattern ? (sdslen(p) == len && !memcmp(p, ch, len))
                           : stringmatchlen(p, (int)sdslen(p), ch, (int)len,
                                            0)) return 1;
        }
    }
    return 0;
}

/* Whether subscriber c of a user about to become u has a subscription
 * u no longer allows. */
static int _subscriberLosesChannel(client *c, user *u) {
    for (int j = 0; j < c->pubsub_npatterns; j++)
        if (!_channelInUser(u, c->pubsub_patterns[j],
                            sdslen(c->pubsub_patterns[j]), 1)) return 1;
    dict *sets[2] = { c->pubsub_channels, c->pubsubshard_channels };
    for (int k = 0; k < 2; k++) {
        if (!sets[k]) continue;
        dictIterator *it = dictGetIterator(sets[k]);
        dictEntry *de;
        int lost = 0;
        while (!lost && (de = dictNext(it)) != NULL) {
            sds ch = dictGetKey(de);
            lost = !_channelInUser(u, ch, sdslen(ch), 0);
        }
        dictReleaseIterator(it);
        if (lost) return 1;
    }
    return 0;
}

/* The subscribers authenticated as orig that the new rules u no longer
 * allow to hear what they subscribed to are closed at once. */
static void _killPubsubClientsIfNeeded(redisServer *s, user *u,
                                       user *orig) {
    for (int j = 0; j < u->nselectors; j++)
        if (u->selectors[j]->flags & SELECTOR_FLAG_ALLCHANNELS) return;
    if (_channelsSuperset(u, orig)) return;
    for (int fd = 0; fd < s->clients_cap; fd++) {
        client *c = s->clients[fd];
        if (!c || c->user != orig || getClientType(c) != CLIENT_TYPE_PUBSUB)
            continue;
        if (!_subscriberLosesChannel(c, u)) continue;
        if (c == s->current_client) freeClientAsync(c);
        else freeClient(c);
    }
}

/* Applies the rules argv[0..argc) to user u, or to a new user named name
 * when u is NULL: all of them or, if one is wrong, none. Returns NULL,
 * or the error ACL SETUSER replies (the caller frees it). */
sds aclStringSetUser(redisServer *s, user *u, sds name, sds *argv,
                     int argc) {
    int merged = 0, bad = 0;
    sds *args = aclMergeSelectorArguments(s, argv, argc, &merged, &bad);
    if (!args)
        return sdscatprintf(s->mem, sdsempty(s->mem), "Unmatched "
                            "parenthesis in acl selector starting at "
                            "'%s'.", argv[bad]);
    user *tmp = aclCreateUnlinkedUser(s);
    if (u) aclCopyUser(s, tmp, u);
    sds error = NULL;
    for (int j = 0; j < merged && !error; j++) {
        int err = aclSetUser(s, tmp, args[j], sdslen(args[j]));
        if (err)
            error = sdscatprintf(s->mem, sdsempty(s->mem), "Error in ACL "
                                 "SETUSER modifier '%s': %s", args[j],
                                 aclSetUserErrorString(err));
    }
    if (!error) {
        if (u) _killPubsubClientsIfNeeded(s, tmp, u);
        else u = aclCreateUser(s, name, sdslen(name));
        aclCopyUser(s, u, tmp);
    }
    aclFreeUser(s, tmp);
    for (int j = 0; j < merged; j++) sdsfree(s->mem, args[j]);
    memFree(s->mem, args);
    return error;
}

/* ---- Authentication. ---- */

/* A new (or RESET) connection is the default user, authenticated when
 * that user is on and needs no password. */
void clientSetDefaultAuth(client *c) {
    user *u = c->srv->acl->default_user;
    c->user = u;
    c->authenticated = (u->flags & USER_FLAG_NOPASS) &&
                       !(u->flags & USER_FLAG_DISABLED);
}

/* Whether c must authenticate before running a command: the default
 * user needs a password or is off, and c has not logged in. */
int authRequired(client *c) {
    user *d = c->srv->acl->default_user;
    return (!(d->flags & USER_FLAG_NOPASS) ||
            (d->flags & USER_FLAG_DISABLED)) && !c->authenticated;
}

/* Compares two 64-digit hashes in time independent of where they
 * differ, as Redis compares passwords. */
static int _hashEqual(const char *a, const char *b) {
    unsigned diff = 0;
    for (int i = 0; i < SHA256_HEX_LEN; i++)
        diff |= (unsigned)(a[i] ^ b[i]);
    return diff == 0;
}

/* Whether username and password log in: the user exists, is on, and
 * needs no password or has this one. C_OK or C_ERR. */
int aclCheckCredentials(redisServer *s, robj *username, robj *password) {
    char ubuf[LONG_STR_SIZE], pbuf[LONG_STR_SIZE];
    size_t ulen, plen;
    const char *name = objectStrBytes(username, ubuf, &ulen);
    user *u = aclGetUser(s, name, ulen);
    if (!u || (u->flags & USER_FLAG_DISABLED)) return C_ERR;
    if (u->flags & USER_FLAG_NOPASS) return C_OK;
    const char *p = objectStrBytes(password, pbuf, &plen);
    char hex[SHA256_HEX_LEN + 1];
    sha256Hex(p, plen, hex);
    for (int j = 0; j < u->npasswords; j++)
        if (_hashEqual(hex, u->passwords[j])) return C_OK;
    return C_ERR;
}

/* Logs c in as username if the password is right (C_OK); otherwise the
 * failure goes to the ACL log (C_ERR). */
int aclAuthenticateUser(client *c, robj *username, robj *password) {
    redisServer *s = c->srv;
    char ubuf[LONG_STR_SIZE];
    size_t ulen;
    const char *name = objectStrBytes(username, ubuf, &ulen);
    if (aclCheckCredentials(s, username, password) == C_OK) {
        c->authenticated = 1;
        c->user = aclGetUser(s, name, ulen);
        return C_OK;
    }
    sds uname = sdsnewlen(s->mem, name, ulen);
    addACLLogEntry(c, ACL_DENIED_AUTH, (c->flags & CLIENT_MULTI)
                   ? ACL_LOG_CTX_MULTI : ACL_LOG_CTX_TOPLEVEL, 0, uname,
                   NULL);
    sdsfree(s->mem, uname);
    return C_ERR;
}

/* requirepass: the default user's password, or "" for none (nopass).
 * The server keeps the text too, for CONFIG GET and CONFIG REWRITE, as
 * Redis keeps the parameter. Returns C_OK. */
int aclSetRequirePass(redisServer *s, const char *pass) {
    sdsfree(s->mem, s->requirepass);
    s->requirepass = pass[0] ? sdsnew(s->mem, pass) : NULL;
    user *d = s->acl->default_user;
    aclSetUser(s, d, "resetpass", 9);
    if (s->requirepass) {
        sds op = sdscatsds(s->mem, sdsnew(s->mem, ">"), s->requirepass);
        aclSetUser(s, d, op, sdslen(op));
        sdsfree(s->mem, op);
    } else {
        aclSetUser(s, d, "nopass", 6);
    }
    return C_OK;
}

/* ---- Permission checks. ---- */

static int _selectorCheckKey(const aclSelector *sel, const char *key,
                             size_t len, int perm) {
    if (sel->flags & SELECTOR_FLAG_ALLKEYS) return ACL_OK;
    for (int j = 0; j < sel->nkeys; j++) {
        const aclKeyPattern *k = &sel->keys[j];
        if ((k->perm & perm) != perm) continue;
        if (stringmatchlen(k->pattern, (int)sdslen(k->pattern), key,
                           (int)len, 0)) return ACL_OK;
    }
    return ACL_DENIED_KEY;
}

/* Whether sel grants perm on every key: allkeys, or "*" with perm. */
static int _selectorHasUnrestrictedKeyAccess(const aclSelector *sel,
                                             int perm) {
    if (sel->flags & SELECTOR_FLAG_ALLKEYS) return 1;
    for (int j = 0; j < sel->nkeys; j++) {
        const aclKeyPattern *k = &sel->keys[j];
        if ((k->perm & perm) == perm && !strcmp(k->pattern, "*")) return 1;
    }
    return 0;
}

/* A channel (or, is_pattern, a PSUBSCRIBE pattern, which only the same
 * pattern allows) against a selector's channel patterns. */
static int _selectorCheckChannel(const aclSelector *sel, const char *ch,
                                 size_t len, int is_pattern) {
    for (int i = 0; i < sel->nchannels; i++) {
        sds p = sel->channels[i];
        if (is_pattern ? (sdslen(p) == len && !memcmp(p, ch, len))
                       : stringmatchlen(p, (int)sdslen(p), ch, (int)len, 0))
            return ACL_OK;
    }
    return ACL_DENIED_CHANNEL;
}

/* The channels a Pub/Sub command names that ACL checks: those it
 * publishes to or subscribes to (unsubscribing needs no permission).
 * Returns the first channel's index (the others follow to the end, or
 * just one when *count is 1), 0 if none; *is_pattern for PSUBSCRIBE. */
static int _commandChannels(const redisCommand *cmd, int argc, int *count,
                            int *is_pattern) {
    redisCommandProc *p = cmd->proc;
    *is_pattern = p == psubscribeCommand;
    if (p == subscribeCommand || p == ssubscribeCommand ||
        p == psubscribeCommand) {
        *count = argc - 1;
        return 1;
    }
    if (p == publishCommand || p == spublishCommand) {
        *count = argc > 1 ? 1 : 0;
        return 1;
    }
    return 0;
}

/* The keys of a command line, looked for once for all the selectors. */
typedef struct keyCache {
    int ready;
    getKeysResult keys;
} keyCache;

/* What a key pattern must grant for a key with these key spec flags:
 * reading a value it returns, writing one it changes; neither (EXISTS,
 * TYPE) when the command does not touch the value, which any pattern
 * matching the key allows. */
static int _keyPermission(int keyflags) {
    int perm = 0;
    if (keyflags & CMD_KEY_ACCESS) perm |= ACL_READ_PERMISSION;
    if (keyflags & (CMD_KEY_INSERT | CMD_KEY_DELETE | CMD_KEY_UPDATE))
        perm |= ACL_WRITE_PERMISSION;
    return perm;
}

static int _selectorCheckCmd(redisServer *s, const aclSelector *sel,
                             const redisCommand *cmd, robj **argv, int argc,
                             int *idx, keyCache *cache) {
    char buf[LONG_STR_SIZE];
    size_t len;
    if (!(sel->flags & SELECTOR_FLAG_ALLCOMMANDS) &&
        !(cmd->flags & CMD_NO_AUTH) && !_bitGet(sel, cmd->id)) {
        sds *first = sel->firstargs ? sel->firstargs[cmd->id] : NULL;
        if (argc < 2 || !first) return ACL_DENIED_CMD;
        const char *arg = objectStrBytes(argv[_isSubcommand(cmd) ? 2 : 1],
                                         buf, &len);
        int j = 0;
        while (first[j] && strcasecmp(arg, first[j])) j++;
        if (!first[j]) return ACL_DENIED_CMD;
    }
    const commandMeta *meta = commandMetaLookup(cmd->fullname);
    if (!(sel->flags & SELECTOR_FLAG_ALLKEYS) && commandHasKeys(meta)) {
        if (!cache->ready) {
            getKeysInit(&cache->keys);
            getKeysFromCommand(s->mem, meta, argv, argc, &cache->keys);
            cache->ready = 1;
        }
        for (int j = 0; j < cache->keys.numkeys; j++) {
            const keyReference *k = &cache->keys.keys[j];
            if (k->pos >= argc) continue;
            const char *key = objectStrBytes(argv[k->pos], buf, &len);
            if (_selectorCheckKey(sel, key, len, _keyPermission(k->flags)) !=
                ACL_OK) {
                *idx = k->pos;
                return ACL_DENIED_KEY;
            }
        }
    }
    int count, is_pattern;
    int first = _commandChannels(cmd, argc, &count, &is_pattern);
    if (!(sel->flags & SELECTOR_FLAG_ALLCHANNELS) && first) {
        for (int j = first; j < first + count; j++) {
            const char *ch = objectStrBytes(argv[j], buf, &len);
            if (_selectorCheckChannel(sel, ch, len, is_pattern) != ACL_OK) {
                *idx = j;
                return ACL_DENIED_CHANNEL;
            }
        }
    }
    return ACL_OK;
}

/* Whether user u may run cmd with these arguments: ACL_OK when one of
 * its selectors allows all of it. Otherwise the denial to report: a
 * command denial only if no selector allows the command; else the worst
 * of the others (channels over keys), at the furthest argument, whose
 * index goes to *idx. A NULL user (the server's own clients) may run
 * anything. */
int aclCheckAllUserCommandPerm(redisServer *s, user *u,
                               const redisCommand *cmd, robj **argv,
                               int argc, int *idx) {
    if (!u) return ACL_OK;
    int relevant = ACL_DENIED_CMD, last_idx = 0;
    keyCache cache = { 0 };
    for (int j = 0; j < u->nselectors; j++) {
        int at = 0;
        int r = _selectorCheckCmd(s, u->selectors[j], cmd, argv, argc, &at,
                                  &cache);
        if (r == ACL_OK) {
            relevant = ACL_OK;
            break;
        }
        if (r > relevant || (r == relevant && at > last_idx)) {
            relevant = r;
            last_idx = at;
        }
    }
    if (cache.ready) getKeysFree(s->mem, &cache.keys);
    *idx = last_idx;
    return relevant;
}

/* Whether c's user may run the command in c's argv. */
int aclCheckAllPerm(client *c, int *idx) {
    return aclCheckAllUserCommandPerm(c->srv, c->user, c->cmd, c->argv,
                                      c->argc, idx);
}

/* Whether u may run the command and has perm on every key, in one same
 * selector: SORT's BY and GET read keys the command line does not
 * name. A NULL user may. */
int aclUserCheckCmdWithUnrestrictedKeyAccess(redisServer *s, user *u,
                                             const redisCommand *cmd,
                                             robj **argv, int argc,
                                             int perm) {
    if (!u) return 1;
    keyCache cache = { 0 };
    int ok = 0;
    for (int j = 0; j < u->nselectors && !ok; j++) {
        int at = 0;
        aclSelector *sel = u->selectors[j];
        ok = _selectorCheckCmd(s, sel, cmd, argv, argc, &at, &cache) ==
             ACL_OK && _selectorHasUnrestrictedKeyAccess(sel, perm);
    }
    if (cache.ready) getKeysFree(s->mem, &cache.keys);
    return ok;
}

/* The reason a script's command was denied, after "The user executing
 * the script ". */
const char *aclErrorMessage(int result) {
    switch (result) {
    case ACL_DENIED_CMD: return "can't run this command or subcommand";
    case ACL_DENIED_KEY:
        return "can't access at least one of the keys mentioned in the "
               "command arguments";
    case ACL_DENIED_CHANNEL:
        return "can't publish to the channel mentioned in the command";
    default: return "lacking the permissions for the command";
    }
}
