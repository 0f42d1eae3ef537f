/* mc_options.c -- see mc_options.h.
 *
 * The options string is split on whitespace and read the way memcached's
 * main() reads argv with getopt_long: short options may be bundled (-vv)
 * or carry their value attached (-m64), long options take --name=value or
 * --name value, words that are not options are ignored. Each option is
 * applied as memcached applies it, including its quirks: -m, -n and -I go
 * through atoi (so "-n abc" is 0), -I understands k/m suffixes and nothing
 * else, -o slab_chunk_max is in bytes (memcached's --help says kilobytes,
 * its code reads bytes). Then the same start-up checks run in the same
 * order, and the first failure's message -- with any message printed
 * before it -- is what the caller gets.
 *
 * Options about the process (ports, users, daemons, threads) are accepted
 * and only shown by `stats settings`. Options this node cannot honour
 * (TLS, SASL, large pages, a memory file, the binary protocol, the
 * segmented LRU) are refused with a message that says so, rather than
 * silently ignored. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include "glasskv.h"
#include "mc_options.h"

#define OPT_MAX_ARGS 64
#define OPT_MAX_CHARS 4096
#define PROG "memcached"

/* Messages printed so far, joined with newlines. */
typedef struct optMsg {
    char *buf;
    size_t cap;
    size_t len;
} optMsg;

/* Appends one line to the messages (truncating at the buffer's end). */
static void _say(optMsg *m, const char *fmt, ...) {
    if (!m->cap) return;
    if (m->len && m->len + 1 < m->cap) m->buf[m->len++] = '\n';
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(m->buf + m->len, m->cap - m->len, fmt, ap);
    va_end(ap);
    if (n > 0) m->len += (size_t)n;
    if (m->len >= m->cap) m->len = m->cap - 1;
    m->buf[m->len] = '\0';
}

/* atoi as glibc does it: strtol, truncated to int. */
static int32_t _atoi(const char *s) {
    return (int32_t)(uint32_t)(uint64_t)strtoll(s, NULL, 10);
}

/* Whether a number ended where memcached's safe_strto* accept it: at the
 * end of the string or at white space, after at least one digit. */
static int _numberEnds(const char *s, const char *end) {
    if (end == s) return 0;
    return *end == '\0' || *end == ' ' || (*end >= '\t' && *end <= '\r');
}

/* safe_strtol: a 64-bit long, stored into 32 bits as memcached stores it
 * (so "4294967297" reads as 1). 0 if it is not a number or overflows. */
int mcSafeStrtol(const char *s, int32_t *out) {
    char *end;
    *out = 0;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno == ERANGE || !_numberEnds(s, end)) return 0;
    *out = (int32_t)(uint32_t)(uint64_t)v;
    return 1;
}

/* safe_strtoul: as mcSafeStrtol, unsigned, refusing a '-' on a value that
 * would read as negative. */
int mcSafeStrtoul(const char *s, uint32_t *out) {
    uint64_t v;
    *out = 0;
    if (!mcSafeStrtoull(s, &v)) return 0;
    *out = (uint32_t)v;
    return 1;
}

/* safe_strtoull: a full 64-bit unsigned value. */
int mcSafeStrtoull(const char *s, uint64_t *out) {
    char *end;
    *out = 0;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno == ERANGE || !_numberEnds(s, end)) return 0;
    if ((long long)v < 0 && strchr(s, '-')) return 0;
    *out = v;
    return 1;
}

/* memcached 1.6.18's defaults (settings_init). */
void mcSettingsInit(mcSettings *s) {
    memset(s, 0, sizeof(*s));
    s->use_cas = 1;
    s->access = 0700;
    s->port = 11211;
    s->maxbytes = 64ULL * 1024 * 1024;
    s->maxconns = 1024;
    s->evict_to_free = 1;
    s->factor = 1.25;
    s->chunk_size = 48;
    s->num_threads = 4;
    s->prefix_delimiter = ':';
    s->reqs_per_event = 20;
    s->backlog = 1024;
    s->binding_protocol = MC_PROT_AUTO;
    s->item_size_max = 1024 * 1024;
    s->slab_page_size = 1024 * 1024;
    s->slab_chunk_size_max = (int32_t)(s->slab_page_size / 2);
    s->maxconns_fast = 1;
    s->lru_crawler = 1;
    s->lru_crawler_sleep = 100;
    s->hot_lru_pct = 20;
    s->warm_lru_pct = 40;
    s->hot_max_factor = 0.2;
    s->warm_max_factor = 2.0;
    s->temporary_ttl = 61;
    s->slab_reassign = 1;
    s->slab_automove = 1;
    s->slab_automove_ratio = 0.8;
    s->slab_automove_window = 30;
    s->flush_enabled = 1;
    s->dump_enabled = 1;
    s->watch_enabled = 1;
    s->hash_algorithm = "murmur3";
    s->logger_watcher_buf_size = 256 * 1024;
    s->logger_buf_size = 64 * 1024;
}

/* ---- The parse state. ---- */

typedef struct optState {
    mcSettings *s;
    optMsg *msg;
    int chunk_max_changed;      /* slab_chunk_size_changed */
    int maintainer;             /* start_lru_maintainer */
    int tcp_specified, udp_specified;
    char slab_sizes[256];       /* slab_sizes_unparsed */
    int has_slab_sizes;
} optState;

#define OPT_FAIL -1             /* stop: the message says why */

/* Refuses an option this node cannot honour, saying which. */
static int _unsupported(optState *st, const char *what) {
    _say(st->msg, "glasskv: %s is not supported by the memcached node",
         what);
    return OPT_FAIL;
}

/* -I: a number with an optional k or m suffix (any other suffix is read
 * by atoi, so "2g" is 2). memcached cuts the unit off a copy before its
 * atoi; atoi stops at the unit anyway, so the argument is read in place,
 * whatever its length. */
static void _optItemSize(optState *st, const char *arg) {
    size_t n = strlen(arg);
    char unit = n ? arg[n - 1] : '\0';
    int64_t v = _atoi(arg);
    if (unit == 'k' || unit == 'K') v *= 1024;
    else if (unit == 'm' || unit == 'M') v *= 1024 * 1024;
    st->s->item_size_max = (int32_t)(uint32_t)(uint64_t)v;
}

/* -l: listen addresses accumulate, comma separated, without repeats. */
static void _optListen(optState *st, const char *arg) {
    char *inter = st->s->inter;
    if (!*inter) {
        snprintf(inter, sizeof(st->s->inter), "%s", arg);
    } else if (!strstr(inter, arg)) {
        size_t len = strlen(inter);
        snprintf(inter + len, sizeof(st->s->inter) - len, ",%s", arg);
    }
}

/* -B: the binding protocol. This node speaks only the text protocol. */
static int _optProtocol(optState *st, const char *arg) {
    if (!strcmp(arg, "auto")) st->s->binding_protocol = MC_PROT_AUTO;
    else if (!strcmp(arg, "ascii")) st->s->binding_protocol = MC_PROT_ASCII;
    else if (!strcmp(arg, "binary"))
        return _unsupported(st, "the binary protocol (-B binary)");
    else {
        _say(st->msg, "Invalid value for binding protocol: %s\n"
             " -- should be one of auto, binary, or ascii", arg);
        return OPT_FAIL;
    }
    return 0;
}

/* Stores atoi(v) in *dst and refuses with msg (a format that may name
 * the option: name) unless lo <= the value <= hi: the one check most of
 * memcached's numeric options get. */
static int _intIn(optState *st, int32_t *dst, const char *v, int32_t lo,
                  int32_t hi, const char *msg, const char *name) {
    *dst = _atoi(v);
    if (*dst >= lo && *dst <= hi) return 0;
    _say(st->msg, msg, name);
    return OPT_FAIL;
}

/* The options memcached checks only against 0: -c and -t must be above
 * it, while -n and -R need only differ from it (a negative -n passes, as
 * in memcached). */
static int _optPositive(optState *st, int c, const char *arg) {
    static const struct {
        char opt;
        int nonzero;            /* 0: must be > 0; 1: must be != 0 */
        size_t field;           /* an int32_t of mcSettings */
        const char *msg;
    } checks[] = {
        { 'c', 0, offsetof(mcSettings, maxconns),
          "Maximum connections must be greater than 0" },
        { 'n', 1, offsetof(mcSettings, chunk_size),
          "Chunk size must be greater than 0" },
        { 't', 0, offsetof(mcSettings, num_threads),
          "Number of threads must be greater than 0" },
        { 'R', 1, offsetof(mcSettings, reqs_per_event),
          "Number of requests per event must be greater than 0" },
    };
    for (size_t i = 0; i < sizeof(checks) / sizeof(checks[0]); i++) {
        if (checks[i].opt != c) continue;
        int32_t *dst = (int32_t *)((char *)st->s + checks[i].field);
        int32_t lo = checks[i].nonzero && _atoi(arg) < 0 ? INT32_MIN : 1;
        return _intIn(st, dst, arg, lo, INT32_MAX, "%s", checks[i].msg);
    }
    return 0;
}

/* -f: the growth factor. A NaN factor would make memcached's class ladder
 * undefined; it is refused here with the same message as a small one. */
static int _optFactor(optState *st, const char *arg) {
    st->s->factor = strtod(arg, NULL);
    if (st->s->factor > 1.0) return 0;
    _say(st->msg, "Factor must be greater than 1");
    return OPT_FAIL;
}

static int _optSub(optState *st, const char *arg);

/* Applies one option character with its argument (NULL if none). */
static int _optApply(optState *st, int c, const char *arg) {
    mcSettings *s = st->s;
    switch (c) {
    case 'A': s->shutdown_command = 1; return 0;
    case 'a': s->access = (int32_t)strtol(arg, NULL, 8); return 0;
    case 'U': s->udpport = _atoi(arg); st->udp_specified = 1; return 0;
    case 'p': s->port = _atoi(arg); st->tcp_specified = 1; return 0;
    case 's': snprintf(s->socketpath, sizeof(s->socketpath), "%s", arg);
              return 0;
    case 'm': s->maxbytes = (uint64_t)(int64_t)_atoi(arg) * 1024 * 1024;
              return 0;
    case 'M': s->evict_to_free = 0; return 0;
    case 'c': case 'n': case 't': case 'R': return _optPositive(st, c, arg);
    case 'k': case 'd': case 'r': case 'u': case 'P': return 0;
    case 'v': s->verbose++; return 0;
    case 'l': _optListen(st, arg); return 0;
    case 'f': return _optFactor(st, arg);
    case 'D':
        s->prefix_delimiter = arg[0];
        s->detail_enabled = 1;
        return 0;
    case 'C': s->use_cas = 0; return 0;
    case 'b': s->backlog = _atoi(arg); return 0;
    case 'B': return _optProtocol(st, arg);
    case 'I': _optItemSize(st, arg); return 0;
    case 'F': s->flush_enabled = 0; return 0;
    case 'X': s->dump_enabled = 0; return 0;
    case 'W': s->watch_enabled = 0; return 0;
    case 'o': return _optSub(st, arg);
    case 'h': case 'i': case 'V':
        return _unsupported(st, "an option that prints and exits");
    case 'Z': return _unsupported(st, "TLS (-Z)");
    case 'S': return _unsupported(st, "SASL (-S)");
    case 'L': return _unsupported(st, "large pages (-L)");
    case 'e': return _unsupported(st, "a memory file (-e)");
    case 'Y': return _unsupported(st, "an auth file (-Y)");
    case 'N': return _unsupported(st, "NAPI ids (-N)");
    default:
        _say(st->msg, "Illegal argument \"%c\"", c);
        return OPT_FAIL;
    }
}

/* ---- -o, memcached's extended options. ---- */

/* Missing values: memcached prints this and exits for most of them. */
static int _subMissing(optState *st, const char *what) {
    _say(st->msg, "Missing %s", what);
    return OPT_FAIL;
}

/* -o slab_chunk_max: bytes. memcached goes on after both of its messages
 * (and later divides by the 0 it stored); the checks after parsing stop
 * here instead. */
static int _subChunkMax(optState *st, const char *v) {
    if (!v) _say(st->msg, "Missing slab_chunk_max argument");
    if (!v || !mcSafeStrtol(v, &st->s->slab_chunk_size_max)) {
        if (v) _say(st->msg, "could not parse argument to slab_chunk_max");
        st->s->slab_chunk_size_max = 0;
    }
    st->chunk_max_changed = 1;
    return 0;
}

/* -o no_modern: memcached 1.4's defaults. */
static void _subNoModern(optState *st) {
    mcSettings *s = st->s;
    if (!st->chunk_max_changed)
        s->slab_chunk_size_max = (int32_t)s->slab_page_size;
    s->slab_reassign = 0;
    s->slab_automove = 0;
    s->maxconns_fast = 0;
    s->lru_segmented = 0;
    s->hash_algorithm = "jenkins";
    s->lru_crawler = 0;
    st->maintainer = 0;
}

/* The LRU tuning suboptions: percentages and factors. */
static int _subLru(optState *st, const char *name, const char *v) {
    mcSettings *s = st->s;
    if (!v) {
        char what[300];
        snprintf(what, sizeof(what), "%s argument", name);
        return _subMissing(st, what);
    }
    int hot = !strcmp(name, "hot_lru_pct");
    if (hot || !strcmp(name, "warm_lru_pct"))
        return _intIn(st, hot ? &s->hot_lru_pct : &s->warm_lru_pct, v, 1, 79,
                      "%s must be > 1 and < 80", name);
    double *f = !strcmp(name, "hot_max_factor") ? &s->hot_max_factor
                                                 : &s->warm_max_factor;
    *f = strtod(v, NULL);
    if (*f > 0) return 0;
    _say(st->msg, "%s must be > 0", name);
    return OPT_FAIL;
}

/* -o slab_automove[=n] and its tuning. */
static int _subAutomove(optState *st, const char *name, const char *v) {
    mcSettings *s = st->s;
    if (!strcmp(name, "slab_automove")) {
        if (!v) { s->slab_automove = 1; return 0; }
        return _intIn(st, &s->slab_automove, v, 0, 2,
                      "%s must be between 0 and 2", name);
    }
    if (!strcmp(name, "slab_automove_ratio")) {
        if (!v) return _subMissing(st, "slab_automove_ratio argument");
        s->slab_automove_ratio = strtod(v, NULL);
        if (s->slab_automove_ratio > 0 && s->slab_automove_ratio <= 1)
            return 0;
        _say(st->msg, "slab_automove_ratio must be > 0 and < 1");
        return OPT_FAIL;
    }
    if (!v) return _subMissing(st, "slab_automove_window argument");
    s->slab_automove_window = (uint32_t)_atoi(v);
    if ((int32_t)s->slab_automove_window >= 3) return 0;
    _say(st->msg, "slab_automove_window must be > 2");
    return OPT_FAIL;
}

/* -o hashpower=n: the initial table is 2^n buckets. */
static int _subHashpower(optState *st, const char *v) {
    if (!v) return _subMissing(st, "numeric argument for hashpower");
    int32_t hp = _atoi(v);
    st->s->hashpower_init = hp;
    if (hp < 12) {
        _say(st->msg, "Initial hashtable multiplier of %d is too low", hp);
        return OPT_FAIL;
    }
    if (hp > 32) {
        _say(st->msg, "Initial hashtable multiplier of %d is too high\n"
             "Choose a value based on \"STAT hash_power_level\" from a "
             "running instance", hp);
        return OPT_FAIL;
    }
    if (hp > 24) return _unsupported(st, "a hash table over 2^24 buckets");
    return 0;
}

static int _subHashAlgorithm(optState *st, const char *v) {
    if (!v) return _subMissing(st, "hash_algorithm argument");
    if (!strcmp(v, "jenkins")) st->s->hash_algorithm = "jenkins";
    else if (!strcmp(v, "murmur3")) st->s->hash_algorithm = "murmur3";
    else if (!strcmp(v, "xxh3")) st->s->hash_algorithm = "xxh3";
    else {
        _say(st->msg, "Unknown hash_algorithm option (jenkins, murmur3, "
             "xxh3)");
        return OPT_FAIL;
    }
    return 0;
}

/* The crawler settings: shown, never acted on (nothing starts a crawl). */
static int _subCrawler(optState *st, const char *name, const char *v) {
    mcSettings *s = st->s;
    if (!strcmp(name, "lru_crawler")) { s->lru_crawler = 1; return 0; }
    if (!strcmp(name, "no_lru_crawler")) { s->lru_crawler = 0; return 0; }
    if (!strcmp(name, "lru_crawler_sleep")) {
        if (!v) return _subMissing(st, "lru_crawler_sleep value");
        return _intIn(st, &s->lru_crawler_sleep, v, 0, 1000000, "%s",
                      "LRU crawler sleep must be between 0 and 1 second");
    }
    if (!v) return _subMissing(st, "lru_crawler_tocrawl value");
    if (mcSafeStrtoul(v, &s->lru_crawler_tocrawl)) return 0;
    _say(st->msg, "lru_crawler_tocrawl takes a numeric 32bit value");
    return OPT_FAIL;
}

/* The two log buffer sizes, in kilobytes. As in memcached 1.6.18, a
 * worker_logbuf_size falls through into slab_sizes. */
static int _subLogbuf(optState *st, const char *name, const char *v) {
    int watcher = !strcmp(name, "watcher_logbuf_size");
    uint32_t *dst = watcher ? &st->s->logger_watcher_buf_size
                            : &st->s->logger_buf_size;
    if (!v) {
        char what[300];
        snprintf(what, sizeof(what), "%s argument", name);
        return _subMissing(st, what);
    }
    if (!mcSafeStrtoul(v, dst)) {
        _say(st->msg, "could not parse argument to %s", name);
        return OPT_FAIL;
    }
    *dst *= 1024;
    if (!watcher) {
        snprintf(st->slab_sizes, sizeof(st->slab_sizes), "%s", v);
        st->has_slab_sizes = 1;
    }
    return 0;
}

/* The numeric suboptions with one simple check each. */
static int _subNumber(optState *st, const char *name, const char *v) {
    mcSettings *s = st->s;
    if (!strcmp(name, "tail_repair_time")) {
        if (!v) return _subMissing(st, "numeric argument for "
                                   "tail_repair_time");
        return _intIn(st, &s->tail_repair_time, v, 10, INT32_MAX,
                      "Cannot set %s to less than 10 seconds", name);
    }
    if (!strcmp(name, "temporary_ttl")) {
        if (!v) return _subMissing(st, "temporary_ttl argument");
        s->temp_lru = 1;
        s->temporary_ttl = (uint32_t)_atoi(v);
        return 0;
    }
    if (!strcmp(name, "idle_timeout")) {
        if (!v) return _subMissing(st, "numeric argument for idle_timeout");
        s->idle_timeout = _atoi(v);
        return 0;
    }
    if (!v) return _subMissing(st, "read_buf_mem_limit argument");
    if (!mcSafeStrtoul(v, &s->read_buf_mem_limit)) {
        _say(st->msg, "could not parse argument to read_buf_mem_limit");
        return OPT_FAIL;
    }
    s->read_buf_mem_limit *= 1024 * 1024;
    return 0;
}

/* The suboptions that are plain switches. Returns 1 if name is one. */
static int _subSwitch(optState *st, const char *name) {
    mcSettings *s = st->s;
    if (!strcmp(name, "maxconns_fast")) s->maxconns_fast = 1;
    else if (!strcmp(name, "no_maxconns_fast")) s->maxconns_fast = 0;
    else if (!strcmp(name, "slab_reassign")) s->slab_reassign = 1;
    else if (!strcmp(name, "no_slab_reassign")) s->slab_reassign = 0;
    else if (!strcmp(name, "no_slab_automove")) s->slab_automove = 0;
    else if (!strcmp(name, "no_chunked_items"))
        s->slab_chunk_size_max = (int32_t)s->slab_page_size;
    else if (!strcmp(name, "track_sizes")) s->track_sizes = 1;
    else if (!strcmp(name, "no_lru_maintainer")) {
        st->maintainer = 0;
        s->lru_segmented = 0;
    } else if (!strcmp(name, "no_modern")) _subNoModern(st);
    else if (strcmp(name, "no_hashexpand") && strcmp(name, "modern") &&
             strcmp(name, "no_inline_ascii_resp") &&
             strcmp(name, "inline_ascii_resp") &&
             strcmp(name, "drop_privileges") &&
             strcmp(name, "no_drop_privileges") &&
             strcmp(name, "resp_obj_mem_limit"))
        return 0;
    return 1;
}

/* Whether name is one of up to four names (NULL ones are skipped). */
static int _isOneOf(const char *name, const char *a, const char *b,
                    const char *c, const char *d) {
    const char *names[4] = { a, b, c, d };
    for (int i = 0; i < 4; i++)
        if (names[i] && !strcmp(name, names[i])) return 1;
    return 0;
}

/* Applies one suboption name[=value]; whole is how it was written, which
 * memcached prints when it does not know the name. */
static int _subApply(optState *st, const char *name, const char *v,
                     const char *whole) {
    if (_subSwitch(st, name)) return 0;
    if (!strcmp(name, "slab_chunk_max")) return _subChunkMax(st, v);
    if (!strcmp(name, "slab_sizes")) {
        snprintf(st->slab_sizes, sizeof(st->slab_sizes), "%s", v ? v : "");
        st->has_slab_sizes = 1;
        return 0;
    }
    if (!strcmp(name, "lru_maintainer"))
        return _unsupported(st, "the segmented LRU (-o lru_maintainer)");
    if (_isOneOf(name, "hot_lru_pct", "warm_lru_pct", "hot_max_factor",
                 "warm_max_factor"))
        return _subLru(st, name, v);
    if (_isOneOf(name, "slab_automove", "slab_automove_ratio",
                 "slab_automove_window", NULL))
        return _subAutomove(st, name, v);
    if (!strcmp(name, "hashpower")) return _subHashpower(st, v);
    if (!strcmp(name, "hash_algorithm")) return _subHashAlgorithm(st, v);
    if (_isOneOf(name, "lru_crawler", "no_lru_crawler", "lru_crawler_sleep",
                 "lru_crawler_tocrawl"))
        return _subCrawler(st, name, v);
    if (_isOneOf(name, "watcher_logbuf_size", "worker_logbuf_size", NULL,
                 NULL))
        return _subLogbuf(st, name, v);
    if (!strcmp(name, "tail_repair_time") || !strcmp(name, "idle_timeout")
        || !strcmp(name, "temporary_ttl") ||
        !strcmp(name, "read_buf_mem_limit"))
        return _subNumber(st, name, v);
    if (!strncmp(name, "ext_", 4) || !strncmp(name, "ssl_", 4) ||
        !strcmp(name, "proxy_config") || !strcmp(name, "sock_cookie_id"))
        return _unsupported(st, "that extended option");
    _say(st->msg, "Illegal suboption \"%s\"", whole);
    return OPT_FAIL;
}

/* -o a,b=c,...: splits like getsubopt and applies each. */
static int _optSub(optState *st, const char *arg) {
    const char *p = arg;
    while (*p) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        char item[256], whole[256];
        snprintf(item, sizeof(item), "%.*s", (int)len, p);
        memcpy(whole, item, sizeof(whole));
        char *eq = strchr(item, '=');
        if (eq) *eq = '\0';
        if (_subApply(st, item, eq ? eq + 1 : NULL, whole) == OPT_FAIL)
            return OPT_FAIL;
        p = end ? end + 1 : p + len;
    }
    return 0;
}

/* ---- getopt_long over the split options. ---- */

static const char shortopts[] =
    "a:AZp:s:U:m:Mc:khiVrvdl:u:P:f:n:t:D:LR:Cb:B:I:SFXWY:e:o:N:";

typedef struct longOpt {
    const char *name;
    int has_arg;                /* 0 no, 1 required, 2 optional */
    char val;
} longOpt;

static const longOpt longopts[] = {
    {"unix-mask", 1, 'a'}, {"enable-shutdown", 0, 'A'},
    {"enable-ssl", 0, 'Z'}, {"port", 1, 'p'}, {"unix-socket", 1, 's'},
    {"udp-port", 1, 'U'}, {"memory-limit", 1, 'm'},
    {"disable-evictions", 0, 'M'}, {"conn-limit", 1, 'c'},
    {"lock-memory", 0, 'k'}, {"help", 0, 'h'}, {"license", 0, 'i'},
    {"version", 0, 'V'}, {"enable-coredumps", 0, 'r'},
    {"verbose", 2, 'v'}, {"daemon", 0, 'd'}, {"listen", 1, 'l'},
    {"user", 1, 'u'}, {"pidfile", 1, 'P'},
    {"slab-growth-factor", 1, 'f'}, {"slab-min-size", 1, 'n'},
    {"threads", 1, 't'}, {"enable-largepages", 0, 'L'},
    {"max-reqs-per-event", 1, 'R'}, {"disable-cas", 0, 'C'},
    {"listen-backlog", 1, 'b'}, {"protocol", 1, 'B'},
    {"max-item-size", 1, 'I'}, {"enable-sasl", 0, 'S'},
    {"disable-flush-all", 0, 'F'}, {"disable-dumping", 0, 'X'},
    {"disable-watch", 0, 'W'}, {"auth-file", 1, 'Y'},
    {"memory-file", 1, 'e'}, {"extended", 1, 'o'}, {"napi-ids", 1, 'N'},
    {NULL, 0, 0}
};

typedef struct optArgs {
    char *argv[OPT_MAX_ARGS];
    int argc;
    int i;                      /* next word */
    const char *nextchar;       /* inside a bundle of short options */
} optArgs;

/* Finds a long option by exact name, or by a prefix only it has. */
static const longOpt *_longFind(const char *name, size_t len) {
    const longOpt *hit = NULL;
    int hits = 0;
    for (const longOpt *o = longopts; o->name; o++) {
        if (strncmp(o->name, name, len)) continue;
        if (strlen(o->name) == len) return o;
        hit = o;
        hits++;
    }
    return hits == 1 ? hit : NULL;
}

/* Reads one --long option. Returns its character, or '?' after getopt's
 * message. */
static int _longOpt(optArgs *a, optMsg *m, const char **arg) {
    const char *word = a->argv[a->i++] + 2;
    const char *eq = strchr(word, '=');
    size_t len = eq ? (size_t)(eq - word) : strlen(word);
    const longOpt *o = _longFind(word, len);
    *arg = NULL;
    if (!o) {
        _say(m, "%s: unrecognized option '--%s'", PROG, word);
        return '?';
    }
    if (eq && o->has_arg == 0) {
        _say(m, "%s: option '--%s' doesn't allow an argument", PROG,
             o->name);
        return '?';
    }
    if (eq) *arg = eq + 1;
    else if (o->has_arg == 1) {
        if (a->i >= a->argc) {
            _say(m, "%s: option '--%s' requires an argument", PROG, o->name);
            return '?';
        }
        *arg = a->argv[a->i++];
    }
    return o->val;
}

/* Reads the next short option of a bundle. */
static int _shortOpt(optArgs *a, optMsg *m, const char **arg) {
    char c = *a->nextchar++;
    const char *spec = strchr(shortopts, c);
    *arg = NULL;
    if (!spec || c == ':') {
        _say(m, "%s: invalid option -- '%c'", PROG, c);
        if (!*a->nextchar) a->nextchar = NULL;
        return '?';
    }
    if (spec[1] == ':') {
        if (*a->nextchar) *arg = a->nextchar;
        else if (a->i < a->argc) *arg = a->argv[a->i++];
        else {
            _say(m, "%s: option requires an argument -- '%c'", PROG, c);
            a->nextchar = NULL;
            return '?';
        }
        a->nextchar = NULL;
    } else if (!*a->nextchar) {
        a->nextchar = NULL;
    }
    return c;
}

/* The next option: its character and argument, '?' on an error, -1 at
 * the end. Words that are not options are skipped, as GNU getopt moves
 * them to the end where memcached never looks. */
static int _getopt(optArgs *a, optMsg *m, const char **arg) {
    if (a->nextchar) return _shortOpt(a, m, arg);
    while (a->i < a->argc) {
        char *w = a->argv[a->i];
        if (!strcmp(w, "--")) return -1;
        if (w[0] == '-' && w[1] == '-') return _longOpt(a, m, arg);
        if (w[0] == '-' && w[1]) {
            a->i++;
            a->nextchar = w + 1;
            return _shortOpt(a, m, arg);
        }
        a->i++;
    }
    return -1;
}

/* Splits the options string on whitespace into buf. -1 if too long. */
static int _split(optArgs *a, char *buf, size_t cap, const char *options) {
    size_t n = strlen(options);
    if (n >= cap) return -1;
    memcpy(buf, options, n + 1);
    a->argc = 0;
    a->i = 0;
    a->nextchar = NULL;
    for (char *p = buf; *p;) {
        while (*p == ' ' || (*p >= '\t' && *p <= '\r')) *p++ = '\0';
        if (!*p) break;
        if (a->argc == OPT_MAX_ARGS) return -1;
        a->argv[a->argc++] = p;
        while (*p && *p != ' ' && (*p < '\t' || *p > '\r')) p++;
    }
    return 0;
}

/* ---- The checks after parsing. ---- */

/* -o slab_sizes=a-b-c (_parse_slab_sizes): increasing, at least 8 bytes
 * apart, between -n and slab_chunk_max, at most 62 of them. */
static int _parseSlabSizes(optState *st) {
    mcSettings *s = st->s;
    uint32_t last = 0, size = 0;
    int i = 0;
    if (!*st->slab_sizes) return OPT_FAIL;
    for (char *save = NULL, *p = strtok_r(st->slab_sizes, "-", &save); p;
         p = strtok_r(NULL, "-", &save)) {
        if (!mcSafeStrtoul(p, &size) || size < (uint32_t)s->chunk_size ||
            size > (uint32_t)s->slab_chunk_size_max) {
            _say(st->msg, "slab size %u is out of valid range", size);
            return OPT_FAIL;
        }
        if (last >= size) {
            _say(st->msg, "slab size %u cannot be lower than or equal to a "
                 "previous class size", size);
            return OPT_FAIL;
        }
        if (size <= last + MC_CHUNK_ALIGN) {
            _say(st->msg, "slab size %u must be at least %d bytes larger "
                 "than previous class", size, MC_CHUNK_ALIGN);
            return OPT_FAIL;
        }
        s->slab_sizes[i++] = size;
        last = size;
        if (i >= MC_MAX_CLASSES - 1) {
            _say(st->msg, "too many slab classes specified");
            return OPT_FAIL;
        }
    }
    s->slab_sizes[i] = 0;
    s->use_slab_sizes = 1;
    return 0;
}

/* The item size checks, in memcached's order. */
static int _checkItemSize(optState *st) {
    mcSettings *s = st->s;
    if (s->item_size_max < 1024) {
        _say(st->msg, "Item max size cannot be less than 1024 bytes.");
        return OPT_FAIL;
    }
    if ((uint64_t)s->item_size_max > s->maxbytes / 2) {
        _say(st->msg, "Cannot set item size limit higher than 1/2 of "
             "memory max.");
        return OPT_FAIL;
    }
    if (s->item_size_max > 1024 * 1024 * 1024) {
        _say(st->msg, "Cannot set item size limit higher than a gigabyte.");
        return OPT_FAIL;
    }
    if (s->item_size_max > 1024 * 1024 && !st->chunk_max_changed)
        s->slab_chunk_size_max = (int32_t)(s->slab_page_size / 2);
    return 0;
}

/* slab_chunk_max against -I and the page size. memcached divides by a
 * zero or negative value and crashes or draws a nonsense ladder; here it
 * is refused. */
static int _checkChunkMax(optState *st) {
    mcSettings *s = st->s;
    int32_t cm = s->slab_chunk_size_max;
    if (cm > s->item_size_max) {
        _say(st->msg, "slab_chunk_max (bytes: %d) cannot be larger than -I "
             "(item_size_max %d)", cm, s->item_size_max);
        return OPT_FAIL;
    }
    if (cm <= 0) {
        _say(st->msg, "glasskv: slab_chunk_max must be a positive number "
             "of bytes");
        return OPT_FAIL;
    }
    if (s->item_size_max % cm != 0) {
        _say(st->msg, "-I (item_size_max: %d) must be evenly divisible by "
             "slab_chunk_max (bytes: %d)", s->item_size_max, cm);
        return OPT_FAIL;
    }
    if ((int32_t)s->slab_page_size % cm != 0) {
        _say(st->msg, "slab_chunk_max (bytes: %d) must divide evenly into "
             "%d (slab_page_size)", cm, s->slab_page_size);
        return OPT_FAIL;
    }
    return 0;
}

/* Everything memcached checks between parsing and start-up. */
static int _checkAll(optState *st) {
    mcSettings *s = st->s;
    if (_checkItemSize(st) || _checkChunkMax(st)) return OPT_FAIL;
    if (st->has_slab_sizes && _parseSlabSizes(st)) return OPT_FAIL;
    if (s->hot_lru_pct + s->warm_lru_pct > 80) {
        _say(st->msg, "hot_lru_pct + warm_lru_pct cannot be more than 80%% "
             "combined");
        return OPT_FAIL;
    }
    if (s->temp_lru && !st->maintainer) {
        _say(st->msg, "temporary_ttl requires lru_maintainer to be "
             "enabled");
        return OPT_FAIL;
    }
    s->num_threads_per_udp = strchr(s->inter, ',') ? 1 : s->num_threads;
    if (st->udp_specified && s->udpport != 0 && !st->tcp_specified)
        s->port = s->udpport;
    if (s->port > 65535) {
        _say(st->msg, "ERROR: Invalid port number %d.", s->port);
        return OPT_FAIL;
    }
    return 0;
}

/* Parses options (memcached's command line, without the program name)
 * into s, which mcSettingsInit has filled. The node always runs as with
 * -o no_lru_maintainer (see mc_items.c). Returns GK_OK, or GK_EINVAL with
 * the messages memcached would print in err. */
int mcOptionsParse(mcSettings *s, const char *options, char *err,
                   size_t errcap) {
    char buf[OPT_MAX_CHARS];
    optMsg msg = { err, errcap, 0 };
    optState st = { s, &msg, 0, 0, 0, 0, "", 0 };
    optArgs a;
    const char *arg;
    int c;
    if (errcap) err[0] = '\0';
    if (_split(&a, buf, sizeof(buf), options ? options : "") < 0) {
        _say(&msg, "glasskv: the options string is too long");
        return GK_EINVAL;
    }
    while ((c = _getopt(&a, &msg, &arg)) != -1)
        if (_optApply(&st, c, arg) == OPT_FAIL) return GK_EINVAL;
    if (_checkAll(&st) == OPT_FAIL) return GK_EINVAL;
    return GK_OK;
}
