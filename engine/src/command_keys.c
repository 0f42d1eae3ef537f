/* command_keys.c -- finding a command's description, reading its key
 * specs, and finding the keys of a command line as Redis 7.0 does (the
 * key specs first, then the key finders of the commands whose specs
 * cannot tell every key or every flag). */
#include "command_keys.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util.h"

/* The description of the command named fullname ("get", "config|get",
 * lower case), or NULL. The table is sorted by name (a test checks it),
 * so this is a binary search. */
const commandMeta *commandMetaLookup(const char *fullname) {
    int lo = 0, hi = commandMetaCount - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        int cmp = strcmp(fullname, commandMetaTable[mid].name);
        if (!cmp) return &commandMetaTable[mid];
        if (cmp < 0) hi = mid - 1;
        else lo = mid + 1;
    }
    return NULL;
}

/* The names of the CMD_KEY_* flags and of the CMDI_* flags, in their
 * bits' order. */
const char *const commandKeyFlagNames[] = {
    "RO", "RW", "OW", "RM", "access", "update", "insert", "delete",
    "not_key", "incomplete", "variable_flags", NULL };

/* The CMD_KEY_* flags named in the ','-separated list from p to end. */
static int _keyFlags(const char *p, const char *end) {
    int flags = 0;
    while (p < end) {
        const char *e = p;
        while (e < end && *e != ',') e++;
        for (int j = 0; commandKeyFlagNames[j]; j++)
            if ((size_t)(e - p) == strlen(commandKeyFlagNames[j]) &&
                !memcmp(p, commandKeyFlagNames[j], (size_t)(e - p)))
                flags |= 1 << j;
        p = e < end ? e + 1 : e;
    }
    return flags;
}

/* Three integers "a,b,c" at p. */
static void _threeInts(const char *p, int *a, int *b, int *c) {
    char *e;
    *a = (int)strtol(p, &e, 10);
    *b = (int)strtol(e + 1, &e, 10);
    *c = (int)strtol(e + 1, &e, 10);
}

/* One spec "FLAGS:BEGIN:FIND" from p to end into ks. */
static void _parseSpec(const char *p, const char *end, keySpec *ks) {
    memset(ks, 0, sizeof(*ks));
    const char *c = memchr(p, ':', (size_t)(end - p));
    ks->flags = _keyFlags(p, c);
    p = c + 1;
    c = memchr(p, ':', (size_t)(end - p));
    const char *at = memchr(p, '@', (size_t)(c - p));
    if (*p == '?') {
        ks->bs_type = KSPEC_UNKNOWN;
    } else if (at) {
        ks->bs_type = KSPEC_BS_KEYWORD;
        ks->keyword = p;
        ks->keyword_len = (int)(at - p);
        ks->startfrom = atoi(at + 1);
    } else {
        ks->bs_type = KSPEC_BS_INDEX;
        ks->pos = atoi(p);
    }
    p = c + 1;
    if (*p == 'r') {
        ks->fk_type = KSPEC_FK_RANGE;
        _threeInts(p + 1, &ks->lastkey, &ks->keystep, &ks->limit);
    } else if (*p == 'n') {
        ks->fk_type = KSPEC_FK_KEYNUM;
        _threeInts(p + 1, &ks->keynumidx, &ks->firstkey, &ks->keystep);
    }
}

/* Parses m's key specs into specs (KSPEC_MAX of them at most); returns
 * how many there are. */
int commandKeySpecs(const commandMeta *m, keySpec *specs) {
    int n = 0;
    const char *p = m ? m->keyspecs : NULL;
    while (p && *p && n < KSPEC_MAX) {
        const char *end = strchr(p, ';');
        if (!end) end = p + strlen(p);
        _parseSpec(p, end, &specs[n++]);
        p = *end ? end + 1 : end;
    }
    return n;
}

const char *const commandInfoFlagNames[] = {
    "write", "readonly", "denyoom", "module", "admin", "pubsub", "noscript",
    "blocking", "loading", "stale", "skip_monitor", "skip_slowlog",
    "asking", "fast", "no_auth", "no_mandatory_keys", "no_async_loading",
    "no_multi", "movablekeys", "allow_busy", NULL };

/* The CMDI_* flags COMMAND INFO shows for the command described by m:
 * those its row declares, and movablekeys when the legacy
 * first/last/step cannot tell every key. */
int commandInfoFlags(const commandMeta *m) {
    int flags = 0, first, last, step, movable;
    if (!m) return 0;
    for (const char *p = m->flags; *p;) {
        const char *e = strchr(p, ' ');
        if (!e) e = p + strlen(p);
        for (int j = 0; commandInfoFlagNames[j]; j++)
            if ((size_t)(e - p) == strlen(commandInfoFlagNames[j]) &&
                !memcmp(p, commandInfoFlagNames[j], (size_t)(e - p)))
                flags |= 1 << j;
        p = *e ? e + 1 : e;
    }
    commandLegacyRange(m, &first, &last, &step, &movable);
    if (movable) flags |= CMDI_MOVABLE_KEYS;
    return flags;
}

/* The legacy (first, last, step) of COMMAND INFO, which Redis derives
 * from the key specs: the plain index-and-range specs with a step of 1
 * that follow one another are glued into one range; any other spec, or
 * an incomplete one, leaves keys the range does not tell, and *movable
 * says so. A lone index-and-range spec is the range as it is, whatever
 * its step. (0, 0, 0) when no spec can be used. */
void commandLegacyRange(const commandMeta *m, int *first, int *last,
                        int *step, int *movable) {
    keySpec specs[KSPEC_MAX];
    int n = commandKeySpecs(m, specs);
    *first = *last = *step = *movable = 0;
    if (n == 0) return;
    if (n == 1 && specs[0].bs_type == KSPEC_BS_INDEX &&
        specs[0].fk_type == KSPEC_FK_RANGE) {
        *first = specs[0].pos;
        *last = specs[0].lastkey >= 0 ? specs[0].pos + specs[0].lastkey
                                      : specs[0].lastkey;
        *step = specs[0].keystep;
        if (specs[0].flags & CMD_KEY_INCOMPLETE) *movable = 1;
        return;
    }
    int lo = INT_MAX, hi = 0, prev_last = 0;
    for (int i = 0; i < n; i++) {
        keySpec *ks = &specs[i];
        if (ks->bs_type != KSPEC_BS_INDEX || ks->fk_type != KSPEC_FK_RANGE ||
            ks->keystep != 1 || (prev_last && prev_last != ks->pos - 1)) {
            *movable = 1;
            continue;
        }
        if (ks->flags & CMD_KEY_INCOMPLETE) *movable = 1;
        if (ks->pos < lo) lo = ks->pos;
        int abs_last = ks->lastkey >= 0 ? ks->lastkey + ks->pos
                                        : ks->lastkey;
        /* A negative last (counted from the end) is the largest. */
        if ((unsigned)abs_last > (unsigned)hi) hi = abs_last;
        prev_last = hi;
    }
    if (lo == INT_MAX) return; /* no spec could be used */
    *first = lo;
    *last = hi;
    *step = 1;
}

/* Whether the command has keys to find: a key finder, or a spec of a
 * real key (not a name only hashed like one). */
int commandHasKeys(const commandMeta *m) {
    keySpec specs[KSPEC_MAX];
    int n = commandKeySpecs(m, specs);
    if (m && m->getkeys != GK_NONE) return 1;
    for (int i = 0; i < n; i++)
        if (!(specs[i].flags & CMD_KEY_NOT_KEY)) return 1;
    return 0;
}

/* ---- Finding the keys of a command line. ---- */

void getKeysInit(getKeysResult *r) {
    r->keys = r->buf;
    r->numkeys = 0;
    r->size = GETKEYS_BUF;
}

void getKeysFree(gkMem *mem, getKeysResult *r) {
    if (r->keys != r->buf) memFree(mem, r->keys);
    getKeysInit(r);
}

/* Room for n keys in all, the ones found so far kept. */
static void _reserve(gkMem *mem, getKeysResult *r, int n) {
    if (n <= r->size) return;
    if (r->keys == r->buf) {
        r->keys = memAlloc(mem, sizeof(keyReference) * (size_t)n);
        memcpy(r->keys, r->buf, sizeof(keyReference) * (size_t)r->numkeys);
    } else {
        r->keys = memRealloc(mem, r->keys, sizeof(keyReference) * (size_t)n);
    }
    r->size = n;
}

static void _add(gkMem *mem, getKeysResult *r, int pos, int flags) {
    if (r->numkeys == r->size) _reserve(mem, r, r->size * 2);
    r->keys[r->numkeys].pos = pos;
    r->keys[r->numkeys].flags = flags;
    r->numkeys++;
}

static int _argIs(robj *arg, const char *word) {
    return !strcasecmp(arg->v.ptr, word);
}

/* Where the search of a spec begins in argv: the index of its first
 * key, or 0 when its keyword is not there. A keyword is looked for
 * from startfrom towards the end (or, negative, from the end towards
 * the start), the arguments at either end excluded, as Redis does. */
static int _specBegin(const keySpec *ks, robj **argv, int argc) {
    if (ks->bs_type == KSPEC_BS_INDEX) return ks->pos;
    int start = ks->startfrom > 0 ? ks->startfrom : argc + ks->startfrom;
    int end = ks->startfrom > 0 ? argc - 1 : 1;
    int dir = start <= end ? 1 : -1;
    for (int i = start; i != end; i += dir) {
        if (i >= argc || i < 1) break;
        const char *a = argv[i]->v.ptr;
        if (strlen(a) == (size_t)ks->keyword_len &&
            !strncasecmp(a, ks->keyword, (size_t)ks->keyword_len))
            return i + 1;
    }
    return 0;
}

/* The keys the specs tell, in the specs' order. Returns their number,
 * or -1 (no keys kept) when a spec cannot be followed on this line (an
 * unknown spec, a bad number of keys, keys past the end) or is
 * incomplete: the command's key finder, if any, has the last word. */
static int _keysFromSpecs(gkMem *mem, const keySpec *specs, int n,
                          robj **argv, int argc, getKeysResult *r) {
    r->numkeys = 0;
    for (int j = 0; j < n; j++) {
        const keySpec *ks = &specs[j];
        int first, last, step;
        if (ks->flags & CMD_KEY_NOT_KEY) continue;
        if (ks->bs_type == KSPEC_UNKNOWN) goto invalid;
        first = _specBegin(ks, argv, argc);
        if (!first) continue; /* no keyword, no keys of this spec */
        if (ks->fk_type == KSPEC_FK_RANGE) {
            step = ks->keystep;
            if (ks->lastkey >= 0) last = first + ks->lastkey;
            else if (!ks->limit) last = argc + ks->lastkey;
            else last = first + ((argc - first) / ks->limit + ks->lastkey);
        } else if (ks->fk_type == KSPEC_FK_KEYNUM) {
            long long numkeys;
            step = ks->keystep;
            if (first + ks->keynumidx >= argc) goto invalid;
            const char *s = argv[first + ks->keynumidx]->v.ptr;
            if (!string2ll(s, strlen(s), &numkeys) || numkeys < 0 ||
                numkeys > INT_MAX)
                goto invalid;
            first += ks->firstkey;
            last = first + (int)numkeys - 1;
        } else {
            goto invalid;
        }
        /* Keys past the end: a line the command will reply an error
         * to. Within it, every key found is an argument. */
        if (last >= argc || last < first || first >= argc) goto invalid;
        for (int i = first; i <= last; i += step)
            _add(mem, r, i, ks->flags);
        if (ks->flags & CMD_KEY_INCOMPLETE) goto invalid;
    }
    return r->numkeys;
invalid:
    r->numkeys = 0;
    return -1;
}

/* CMD [store] numkeys key ...: numkeys at countpos (read as atoi reads
 * it), the keys from firstpos on, then the store key if storepos. No
 * keys when numkeys is below 1 or more than the arguments left. */
static int _numkeysKeys(gkMem *mem, int storepos, int countpos,
                        int firstpos, robj **argv, int argc,
                        getKeysResult *r) {
    long num = strtol(argv[countpos]->v.ptr, NULL, 10);
    r->numkeys = 0;
    if (num < 1 || num > argc - firstpos) return 0;
    for (long i = 0; i < num; i++) _add(mem, r, firstpos + (int)i, 0);
    if (storepos) _add(mem, r, storepos, 0);
    return r->numkeys;
}

/* SORT key [BY p] [LIMIT o c] [GET p ...] [ASC|DESC] [ALPHA] [STORE d]:
 * the sorted key, and the key of the last STORE. LIMIT's two arguments
 * and BY's and GET's one are skipped; other words take none. */
static int _sortKeys(gkMem *mem, robj **argv, int argc, getKeysResult *r) {
    int store = 0;
    r->numkeys = 0;
    _add(mem, r, 1, CMD_KEY_RO | CMD_KEY_ACCESS);
    for (int i = 2; i < argc; i++) {
        if (_argIs(argv[i], "limit")) i += 2;
        else if (_argIs(argv[i], "store") && i + 1 < argc) store = i + 1;
        else if (_argIs(argv[i], "get") || _argIs(argv[i], "by")) i++;
    }
    if (store) _add(mem, r, store, CMD_KEY_OW | CMD_KEY_UPDATE);
    return r->numkeys;
}

/* MIGRATE host port key|"" db timeout [COPY] [REPLACE] [AUTH pw]
 * [AUTH2 user pw] [KEYS key ...]: the key, or the keys after KEYS when
 * the key argument is empty (none when it is not: a syntax error). */
static int _migrateKeys(gkMem *mem, robj **argv, int argc,
                        getKeysResult *r) {
    int first = 3, num = 1;
    for (int i = 6; i < argc; i++) {
        if (_argIs(argv[i], "keys")) {
            if (((char *)argv[3]->v.ptr)[0]) {
                num = 0;
            } else {
                first = i + 1;
                num = argc - first;
            }
            break;
        }
        if (_argIs(argv[i], "auth")) i += 1;
        else if (_argIs(argv[i], "auth2")) i += 2;
    }
    r->numkeys = 0;
    for (int i = 0; i < num; i++)
        _add(mem, r, first + i,
             CMD_KEY_RW | CMD_KEY_ACCESS | CMD_KEY_DELETE);
    return r->numkeys;
}

/* GEORADIUS key ... [STORE dest] [STOREDIST dest]: the key and the
 * last destination given (the one the command writes). */
static int _georadiusKeys(gkMem *mem, robj **argv, int argc,
                          getKeysResult *r) {
    int store = 0;
    for (int i = 5; i < argc; i++) {
        if ((_argIs(argv[i], "store") || _argIs(argv[i], "storedist")) &&
            i + 1 < argc) {
            store = i + 1;
            i++;
        }
    }
    r->numkeys = 0;
    _add(mem, r, 1, 0);
    if (store) _add(mem, r, store, 0);
    return r->numkeys;
}

/* XREAD [BLOCK ms] [COUNT n] [GROUP g c] [NOACK] STREAMS key ... id ...:
 * the first half of what follows STREAMS; none when the options cannot
 * be read up to STREAMS or what follows is not key-id pairs. */
static int _xreadKeys(gkMem *mem, robj **argv, int argc,
                      getKeysResult *r) {
    int streams = -1;
    for (int i = 1; i < argc; i++) {
        if (_argIs(argv[i], "block") || _argIs(argv[i], "count")) {
            i++;
        } else if (_argIs(argv[i], "group")) {
            i += 2;
        } else if (_argIs(argv[i], "noack")) {
            continue;
        } else {
            if (_argIs(argv[i], "streams")) streams = i;
            break;
        }
    }
    r->numkeys = 0;
    int num = streams == -1 ? 0 : argc - streams - 1;
    if (num == 0 || num % 2) return 0;
    for (int i = 0; i < num / 2; i++) _add(mem, r, streams + 1 + i, 0);
    return r->numkeys;
}

/* SET key value ... [GET] ...: read too when GET is there. */
static int _setKeys(gkMem *mem, robj **argv, int argc, getKeysResult *r) {
    int flags = CMD_KEY_OW | CMD_KEY_UPDATE;
    for (int i = 3; i < argc; i++)
        if (_argIs(argv[i], "get")) {
            flags = CMD_KEY_RW | CMD_KEY_ACCESS | CMD_KEY_UPDATE;
            break;
        }
    r->numkeys = 0;
    _add(mem, r, 1, flags);
    return 1;
}

/* BITFIELD key [GET t o] [SET t o v] [INCRBY t o i] [OVERFLOW w]: read
 * only while only GETs (and OVERFLOWs) are read; a SET, an INCRBY or a
 * word that cannot be read makes it a write. */
static int _bitfieldKeys(gkMem *mem, robj **argv, int argc,
                         getKeysResult *r) {
    int readonly = 1;
    for (int i = 2; i < argc; i++) {
        int left = argc - i - 1;
        if (_argIs(argv[i], "get") && left >= 2) {
            i += 2;
        } else if (_argIs(argv[i], "overflow") && left >= 1) {
            i += 1;
        } else {
            readonly = 0;
            break;
        }
    }
    r->numkeys = 0;
    _add(mem, r, 1, readonly ? CMD_KEY_RO | CMD_KEY_ACCESS
                             : CMD_KEY_RW | CMD_KEY_ACCESS | CMD_KEY_UPDATE);
    return 1;
}

static int _keyFinder(gkMem *mem, int finder, robj **argv, int argc,
                      getKeysResult *r) {
    switch (finder) {
    case GK_SET: return _setKeys(mem, argv, argc, r);
    case GK_BITFIELD: return _bitfieldKeys(mem, argv, argc, r);
    case GK_SORT: return _sortKeys(mem, argv, argc, r);
    case GK_SORT_RO:
        r->numkeys = 0;
        _add(mem, r, 1, CMD_KEY_RO | CMD_KEY_ACCESS);
        return 1;
    case GK_MIGRATE: return _migrateKeys(mem, argv, argc, r);
    case GK_GEORADIUS: return _georadiusKeys(mem, argv, argc, r);
    case GK_XREAD: return _xreadKeys(mem, argv, argc, r);
    case GK_NUMKEYS_AT1: return _numkeysKeys(mem, 0, 1, 2, argv, argc, r);
    case GK_NUMKEYS_AT2: return _numkeysKeys(mem, 0, 2, 3, argv, argc, r);
    case GK_STORE_NUMKEYS:
        return _numkeysKeys(mem, 1, 2, 3, argv, argc, r);
    default: r->numkeys = 0; return 0;
    }
}

/* The keys of the command line argv (argv[0] the command's name, the
 * command described by m) into r, which the caller frees with
 * getKeysFree. Returns their number. The key specs are followed when
 * the command has a spec of a real key and every spec's flags hold
 * whatever the arguments (none is variable_flags); when they cannot
 * tell the keys, or do not hold, the command's key finder does. */
int getKeysFromCommand(gkMem *mem, const commandMeta *m, robj **argv,
                       int argc, getKeysResult *r) {
    keySpec specs[KSPEC_MAX];
    int n = commandKeySpecs(m, specs), real = 0, varflags = 0;
    for (int i = 0; i < n; i++) {
        if (!(specs[i].flags & CMD_KEY_NOT_KEY)) real = 1;
        if (specs[i].flags & CMD_KEY_VARIABLE_FLAGS) varflags = 1;
    }
    if (real && !varflags) {
        int found = _keysFromSpecs(mem, specs, n, argv, argc, r);
        if (found >= 0) return found;
    }
    if (m && m->getkeys != GK_NONE)
        return _keyFinder(mem, m->getkeys, argv, argc, r);
    r->numkeys = 0;
    return 0;
}

/* The keys of argv as Redis 7.0's getKeysFromCommand finds them, which
 * client-side caching uses (COMMAND GETKEYS uses getKeysFromCommand
 * above): the command's key finder if it has one, else only the legacy
 * (first, last, step) range COMMAND INFO shows. A line too short for the
 * range has no keys: the command will reply an error to it. Returns the
 * number of keys, in r. */
int getKeysFromCommandLegacy(gkMem *mem, const commandMeta *m, robj **argv,
                             int argc, getKeysResult *r) {
    int first, last, step, movable;
    r->numkeys = 0;
    if (!m) return 0;
    if (m->getkeys != GK_NONE)
        return _keyFinder(mem, m->getkeys, argv, argc, r);
    commandLegacyRange(m, &first, &last, &step, &movable);
    if (first <= 0 || step <= 0) return 0;
    if (last < 0) last = argc + last;
    for (int j = first; j <= last; j += step) {
        if (j >= argc || j < first) {
            r->numkeys = 0;
            return 0;
        }
        _add(mem, r, j, 0);
    }
    return r->numkeys;
}
