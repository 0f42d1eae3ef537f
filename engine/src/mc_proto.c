/* mc_proto.c -- memcached 1.6.18's text protocol (proto_text.c and the
 * storage half of memcached.c): tokenizing a command line, dispatching it,
 * and the storage, retrieval, arithmetic, delete, touch and flush
 * commands with memcached's replies and error strings.
 *
 * A command line is split on single spaces, at most 24 tokens at a time;
 * the last token is a terminator that points at whatever was not split
 * (only multi-key gets go back for more). Commands are matched on their
 * first letter, then by name, and a wrong token count is a bare "ERROR".
 * "noreply" is only recognised as the last token, and only by the
 * commands that look for it; once seen it suppresses the reply even when
 * the reply is an error. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include "mc_server.h"

#define KEY_TOKEN 1

/* What storing an item did (memcached's store_item_type). */
#define ST_NOT_STORED 0
#define ST_STORED 1
#define ST_EXISTS 2
#define ST_NOT_FOUND 3

/* Results of incr/decr (delta_result_type). */
#define DELTA_OK 0
#define DELTA_NON_NUMERIC 1
#define DELTA_EOM 2
#define DELTA_NOT_FOUND 3

/* Splits command in place on spaces, as memcached's tokenize_command:
 * empty tokens are skipped, and after max_tokens - 1 tokens the rest is
 * left unsplit. The last token has length 0 and points at that rest, or
 * is NULL if the whole line was split. Returns the token count, the last
 * one included. */
size_t mcTokenize(char *command, mcToken *tokens, size_t max_tokens) {
    size_t ntokens = 0, len = strlen(command);
    char *s = command, *e = command;
    for (size_t i = 0; i < len; i++, e++) {
        if (*e != ' ') continue;
        if (s != e) {
            tokens[ntokens].value = s;
            tokens[ntokens].length = (size_t)(e - s);
            ntokens++;
            *e = '\0';
            if (ntokens == max_tokens - 1) {
                s = ++e;
                break;
            }
        }
        s = e + 1;
    }
    if (s != e) {
        tokens[ntokens].value = s;
        tokens[ntokens].length = (size_t)(e - s);
        ntokens++;
    }
    tokens[ntokens].value = *e == '\0' ? NULL : e;
    tokens[ntokens].length = 0;
    return ntokens + 1;
}

/* Sets noreply if the last real token is "noreply". */
static int _setNoreplyMaybe(mcConn *c, mcToken *tokens, size_t ntokens) {
    const char *v = tokens[ntokens - 2].value;
    if (v && !strcmp(v, "noreply")) c->noreply = 1;
    return c->noreply;
}

/* A negative exptime means "already expired" (EXPTIME_TO_POSITIVE_TIME). */
static uint32_t _exptime(mcConn *c, int32_t exptime) {
    int64_t e = exptime < 0 ? MC_REALTIME_MAXDELTA + 1 : exptime;
    return cacheRealtime(&c->srv->cache, e);
}

static uint32_t _hash(mcConn *c, const char *key, size_t nkey) {
    return assocHash(&c->srv->cache.assoc, key, nkey);
}

/* ---- Retrieval: get, gets, gat, gats. ---- */

/* Appends "VALUE key flags bytes [cas]\r\n" and the value. */
static void _outValue(mcConn *c, mcItem *it, int return_cas) {
    char line[MC_KEY_MAX_LENGTH + 80];
    int n = snprintf(line, sizeof(line), "VALUE %.*s %u %d", (int)it->nkey,
                     itemKey(it), itemFlags(it), it->nbytes - 2);
    if (return_cas)
        n += snprintf(line + n, sizeof(line) - (size_t)n, " %llu",
                      (unsigned long long)itemGetCas(it));
    memcpy(line + n, "\r\n", 2);
    mcConnOut(c, line, (size_t)n + 2);
    size_t at = sdslen(c->out);
    c->out = sdsMakeRoomFor(c->srv->mem, c->out, (size_t)it->nbytes);
    itemValueCopy(it, c->out + at);
    sdsIncrLen(c->out, (size_t)it->nbytes);
}

/* Looks one key up for a get and replies to it, counting as memcached. */
static void _getOne(mcConn *c, mcToken *key, int return_cas,
                    int should_touch, uint32_t exptime) {
    mcCache *cache = &c->srv->cache;
    uint32_t hv = _hash(c, key->value, key->length);
    mcItem *it = should_touch
        ? itemTouch(cache, key->value, key->length, hv, exptime)
        : itemGet(cache, key->value, key->length, hv, 1);
    if (should_touch) cache->ts.touch_cmds++;
    else cache->ts.get_cmds++;
    if (!it) {
        if (should_touch) cache->ts.touch_misses++;
        else cache->ts.get_misses++;
        return;
    }
    _outValue(c, it, return_cas);
    if (should_touch) cache->slab_stats[it->slabs_clsid].touch_hits++;
    else cache->slab_stats[it->slabs_clsid].get_hits++;
    itemRemove(cache, it);
}

/* process_get_command: every key after the command (after the exptime for
 * gat/gats), re-splitting the line when it has more than 24 tokens. A key
 * over 250 bytes drops every reply not yet written and answers with an
 * error instead. A get that completes is a write point: its reply, and
 * those before it, are written at once. */
static void _processGet(mcConn *c, mcToken *tokens, int return_cas,
                        int should_touch) {
    mcToken *key = &tokens[KEY_TOKEN];
    uint32_t exptime = 0;
    if (should_touch) {
        int32_t e;
        if (!mcSafeStrtol(tokens[1].value, &e)) {
            mcConnOutString(c, "CLIENT_ERROR invalid exptime argument");
            return;
        }
        key++;
        exptime = _exptime(c, e);
    }
    do {
        for (; key->length != 0; key++) {
            if (key->length > MC_KEY_MAX_LENGTH) {
                mcConnCull(c);
                mcConnOutString(c, "CLIENT_ERROR bad command line format");
                return;
            }
            _getOne(c, key, return_cas, should_touch, exptime);
        }
        if (key->value) {
            mcTokenize(key->value, tokens, MC_MAX_TOKENS);
            key = tokens;
        }
    } while (key->value);
    mcConnOut(c, "END\r\n", 5);
    c->state = MC_CONN_MWRITE;
}

/* ---- Storage: set, add, replace, append, prepend, cas. ---- */

/* process_update_command: parses "<cmd> key flags exptime bytes [cas]
 * [noreply]" and allocates the item the value will be read into. If the
 * item cannot be had, the value that follows is swallowed unread (and a
 * failed set deletes the key's old value). */
static void _processUpdate(mcConn *c, mcToken *tokens, size_t ntokens,
                           int comm, int handle_cas) {
    mcCache *cache = &c->srv->cache;
    uint32_t flags;
    int32_t exptime_int, vlen;
    uint64_t req_cas_id = 0;
    _setNoreplyMaybe(c, tokens, ntokens);
    char *key = tokens[KEY_TOKEN].value;
    size_t nkey = tokens[KEY_TOKEN].length;
    if (nkey > MC_KEY_MAX_LENGTH ||
        !(mcSafeStrtoul(tokens[2].value, &flags) &&
          mcSafeStrtol(tokens[3].value, &exptime_int) &&
          mcSafeStrtol(tokens[4].value, &vlen)) ||
        (handle_cas && !mcSafeStrtoull(tokens[5].value, &req_cas_id)) ||
        vlen < 0 || vlen > INT_MAX - 2) {
        mcConnOutString(c, "CLIENT_ERROR bad command line format");
        return;
    }
    vlen += 2;
    mcItem *it = itemAlloc(cache, key, nkey, flags, _exptime(c, exptime_int),
                           vlen);
    if (!it) {
        if (!itemSizeOk(cache, nkey, flags, vlen)) {
            mcConnOutString(c, "SERVER_ERROR object too large for cache");
            cache->ts.store_too_large++;
        } else {
            mcConnOutString(c, "SERVER_ERROR out of memory storing object");
            cache->ts.store_no_memory++;
        }
        c->state = MC_CONN_SWALLOW;
        c->sbytes = (size_t)vlen;
        if (comm == MC_NREAD_SET) {
            uint32_t hv = _hash(c, key, nkey);
            mcItem *old = itemGet(cache, key, nkey, hv, 0);
            if (old) {
                itemUnlink(cache, old, hv);
                itemRemove(cache, old);
            }
        }
        return;
    }
    itemSetCas(it, req_cas_id);
    c->item = it;
    c->cmd = comm;
    c->ritem = itemData(it);
    c->rch = NULL;
    c->rlbytes = (size_t)it->nbytes;
    c->state = MC_CONN_NREAD;
}

/* The value of append/prepend: old and added bytes, CRLF once. */
static int _copyData(mcCache *cache, int comm, mcItem *old_it,
                     mcItem *new_it, mcItem *add_it) {
    mcItem *first = comm == MC_NREAD_APPEND ? old_it : add_it;
    mcItem *second = comm == MC_NREAD_APPEND ? add_it : old_it;
    if (new_it->it_flags & MC_ITEM_CHUNKED) {
        if (itemCopyChunks(cache, new_it, first, first->nbytes - 2) == -1 ||
            itemCopyChunks(cache, new_it, second, second->nbytes) == -1)
            return -1;
        return 0;
    }
    memcpy(itemData(new_it), itemData(first), (size_t)first->nbytes);
    memcpy(itemData(new_it) + first->nbytes - 2, itemData(second),
           (size_t)second->nbytes);
    return 0;
}

/* Builds the appended/prepended item; NULL (NOT_STORED) if it cannot be
 * allocated or filled. */
static mcItem *_concat(mcCache *cache, int comm, mcItem *old_it,
                       mcItem *it) {
    mcItem *new_it = itemAlloc(cache, itemKey(it), it->nkey,
                               itemFlags(old_it), old_it->exptime,
                               it->nbytes + old_it->nbytes - 2);
    if (!new_it) return NULL;
    if (_copyData(cache, comm, old_it, new_it, it) == -1) {
        itemRemove(cache, new_it);
        return NULL;
    }
    return new_it;
}

/* do_store_item when the key exists. */
static int _storeOver(mcCache *cache, mcItem *it, mcItem *old_it, int comm,
                      uint32_t hv) {
    uint64_t it_cas = itemGetCas(it);
    int cas_match = it_cas != 0 && it_cas == itemGetCas(old_it);
    mcItem *new_it = NULL;
    int stored = ST_NOT_STORED, do_store = 0;
    unsigned old_cls = old_it->slabs_clsid;
    if (comm == MC_NREAD_ADD) {
        itemUpdate(cache, old_it);
    } else if (comm == MC_NREAD_CAS) {
        if (cas_match) cache->slab_stats[old_cls].cas_hits++;
        else cache->slab_stats[old_cls].cas_badval++;
        if (cas_match) do_store = 1;
        else stored = ST_EXISTS;
    } else if (comm == MC_NREAD_APPEND || comm == MC_NREAD_PREPEND) {
        if (it_cas != 0 && !cas_match) {
            stored = ST_EXISTS;
        } else if ((new_it = _concat(cache, comm, old_it, it)) != NULL) {
            it = new_it;
            do_store = 1;
        }
    } else {
        do_store = 1;
    }
    if (do_store) {
        itemReplace(cache, old_it, it, hv);
        stored = ST_STORED;
    }
    itemRemove(cache, old_it);
    if (new_it) itemRemove(cache, new_it);
    return stored;
}

/* do_store_item: applies a storage command's semantics to a received
 * item. */
static int _storeItem(mcConn *c, mcItem *it, int comm) {
    mcCache *cache = &c->srv->cache;
    uint32_t hv = _hash(c, itemKey(it), it->nkey);
    mcItem *old_it = itemGet(cache, itemKey(it), it->nkey, hv, 0);
    if (old_it) {
        cache->locked = 1;
        cache->locked_hv = hv;
        int stored = _storeOver(cache, it, old_it, comm, hv);
        cache->locked = 0;
        return stored;
    }
    if (comm == MC_NREAD_CAS) {
        cache->ts.cas_misses++;
        return ST_NOT_FOUND;
    }
    if (comm != MC_NREAD_ADD && comm != MC_NREAD_SET) return ST_NOT_STORED;
    itemLink(cache, it, hv);
    return ST_STORED;
}

/* complete_nread_ascii: the value has been read into c->item. It must
 * end in "\r\n"; then it is stored and the outcome answered. */
void mcCompleteNread(mcConn *c) {
    static const char *const replies[] = {
        "NOT_STORED", "STORED", "EXISTS", "NOT_FOUND"
    };
    mcCache *cache = &c->srv->cache;
    mcItem *it = c->item;
    char tail[2];
    cache->slab_stats[it->slabs_clsid].set_cmds++;
    itemValueTail(it, tail);
    c->state = MC_CONN_NEW_CMD;
    if (tail[0] != '\r' || tail[1] != '\n')
        mcConnOutString(c, "CLIENT_ERROR bad data chunk");
    else
        mcConnOutString(c, replies[_storeItem(c, it, c->cmd)]);
    itemRemove(cache, it);
    c->item = NULL;
}

/* ---- incr and decr. ---- */

/* Reads the number an item holds as memcached's safe_strtoull reads its
 * data: digits after optional white space, ending at white space. Only
 * the first 1 KB is looked at; memcached's strtoull would run on past a
 * value of nothing but white space into the chunk's slack. */
static int _itemNumber(mcItem *it, uint64_t *value) {
    char buf[1024];
    size_t n = (size_t)it->nbytes < sizeof(buf) - 1 ? (size_t)it->nbytes
                                                     : sizeof(buf) - 1;
    memcpy(buf, itemData(it), n);
    buf[n] = '\0';
    return mcSafeStrtoull(buf, value);
}

/* Stores the new number: in place when it fits and nobody else holds the
 * item (padding with spaces, as memcached does), else as a new item. */
static int _deltaStore(mcCache *cache, mcItem *it, const char *buf,
                       size_t res, uint32_t hv) {
    if ((int32_t)res + 2 <= it->nbytes && it->refcount == 2) {
        itemSizesAdjust(cache, it, -1);
        itemSetCas(it, cache->use_cas ? cacheNextCas(cache) : 0);
        itemSizesAdjust(cache, it, 1);
        memcpy(itemData(it), buf, res);
        memset(itemData(it) + res, ' ', (size_t)it->nbytes - res - 2);
        itemUpdate(cache, it);
        return DELTA_OK;
    }
    mcItem *new_it = itemAlloc(cache, itemKey(it), it->nkey, itemFlags(it),
                               it->exptime, (int32_t)res + 2);
    if (!new_it) return DELTA_EOM;
    memcpy(itemData(new_it), buf, res);
    memcpy(itemData(new_it) + res, "\r\n", 2);
    itemReplace(cache, it, new_it, hv);
    itemSetCas(it, cache->use_cas ? itemGetCas(new_it) : 0);
    itemRemove(cache, new_it);
    return DELTA_OK;
}

/* do_add_delta: adds delta to (or, not below 0, subtracts it from) the
 * number stored under key; the result's digits go to buf. */
static int _addDelta(mcConn *c, const char *key, size_t nkey, int incr,
                     uint64_t delta, char *buf, size_t cap) {
    mcCache *cache = &c->srv->cache;
    uint32_t hv = _hash(c, key, nkey);
    mcItem *it = itemGet(cache, key, nkey, hv, 0);
    uint64_t value;
    if (!it) return DELTA_NOT_FOUND;
    if (it->nbytes <= 2 || (it->it_flags & MC_ITEM_CHUNKED) ||
        !_itemNumber(it, &value)) {
        itemRemove(cache, it);
        return DELTA_NON_NUMERIC;
    }
    if (incr) value += delta;
    else value = delta > value ? 0 : value - delta;
    if (incr) cache->slab_stats[it->slabs_clsid].incr_hits++;
    else cache->slab_stats[it->slabs_clsid].decr_hits++;
    size_t res = (size_t)snprintf(buf, cap, "%llu",
                                  (unsigned long long)value);
    cache->locked = 1;
    cache->locked_hv = hv;
    int rc = _deltaStore(cache, it, buf, res, hv);
    cache->locked = 0;
    itemRemove(cache, it);
    return rc;
}

/* incr|decr key delta [noreply]. */
static void _processArithmetic(mcConn *c, mcToken *tokens, size_t ntokens,
                               int incr) {
    char temp[24];
    uint64_t delta;
    mcCache *cache = &c->srv->cache;
    _setNoreplyMaybe(c, tokens, ntokens);
    if (tokens[KEY_TOKEN].length > MC_KEY_MAX_LENGTH) {
        mcConnOutString(c, "CLIENT_ERROR bad command line format");
        return;
    }
    if (!mcSafeStrtoull(tokens[2].value, &delta)) {
        mcConnOutString(c, "CLIENT_ERROR invalid numeric delta argument");
        return;
    }
    switch (_addDelta(c, tokens[KEY_TOKEN].value, tokens[KEY_TOKEN].length,
                      incr, delta, temp, sizeof(temp))) {
    case DELTA_OK: mcConnOutString(c, temp); break;
    case DELTA_NON_NUMERIC:
        mcConnOutString(c, "CLIENT_ERROR cannot increment or decrement "
                        "non-numeric value");
        break;
    case DELTA_EOM: mcConnOutString(c, "SERVER_ERROR out of memory"); break;
    default:
        if (incr) cache->ts.incr_misses++;
        else cache->ts.decr_misses++;
        mcConnOutString(c, "NOT_FOUND");
    }
}

/* ---- delete, touch. ---- */

/* delete key [0] [noreply]: the old "hold time" must be 0 if given. */
static void _processDelete(mcConn *c, mcToken *tokens, size_t ntokens) {
    mcCache *cache = &c->srv->cache;
    if (ntokens > 3) {
        int hold_is_zero = !strcmp(tokens[KEY_TOKEN + 1].value, "0");
        int sets_noreply = _setNoreplyMaybe(c, tokens, ntokens);
        int valid = (ntokens == 4 && (hold_is_zero || sets_noreply)) ||
                    (ntokens == 5 && hold_is_zero && sets_noreply);
        if (!valid) {
            mcConnOutString(c, "CLIENT_ERROR bad command line format.  "
                            "Usage: delete <key> [noreply]");
            return;
        }
    }
    char *key = tokens[KEY_TOKEN].value;
    size_t nkey = tokens[KEY_TOKEN].length;
    if (nkey > MC_KEY_MAX_LENGTH) {
        mcConnOutString(c, "CLIENT_ERROR bad command line format");
        return;
    }
    uint32_t hv = _hash(c, key, nkey);
    mcItem *it = itemGet(cache, key, nkey, hv, 0);
    if (!it) {
        cache->ts.delete_misses++;
        mcConnOutString(c, "NOT_FOUND");
        return;
    }
    cache->slab_stats[it->slabs_clsid].delete_hits++;
    itemUnlink(cache, it, hv);
    itemRemove(cache, it);
    mcConnOutString(c, "DELETED");
}

/* touch key exptime [noreply]: a new expiry, and a hit. */
static void _processTouch(mcConn *c, mcToken *tokens, size_t ntokens) {
    mcCache *cache = &c->srv->cache;
    int32_t exptime_int;
    _setNoreplyMaybe(c, tokens, ntokens);
    char *key = tokens[KEY_TOKEN].value;
    size_t nkey = tokens[KEY_TOKEN].length;
    if (nkey > MC_KEY_MAX_LENGTH) {
        mcConnOutString(c, "CLIENT_ERROR bad command line format");
        return;
    }
    if (!mcSafeStrtol(tokens[2].value, &exptime_int)) {
        mcConnOutString(c, "CLIENT_ERROR invalid exptime argument");
        return;
    }
    mcItem *it = itemTouch(cache, key, nkey, _hash(c, key, nkey),
                           _exptime(c, exptime_int));
    cache->ts.touch_cmds++;
    if (!it) {
        cache->ts.touch_misses++;
        mcConnOutString(c, "NOT_FOUND");
        return;
    }
    cache->slab_stats[it->slabs_clsid].touch_hits++;
    mcConnOutString(c, "TOUCHED");
    itemRemove(cache, it);
}

/* ---- flush_all, verbosity, cache_memlimit, shutdown. ---- */

/* flush_all [delay] [noreply]: nothing is deleted now; items older than
 * the flush time stop existing when it comes, and are reclaimed lazily.
 * With CAS on, items stored in the flush's own second are caught by
 * their CAS being older than the one the flush takes. */
static void _processFlushAll(mcConn *c, mcToken *tokens, size_t ntokens) {
    mcServer *s = c->srv;
    mcCache *cache = &s->cache;
    int32_t exptime = 0;
    _setNoreplyMaybe(c, tokens, ntokens);
    cache->ts.flush_cmds++;
    if (!s->settings.flush_enabled) {
        mcConnOutString(c, "CLIENT_ERROR flush_all not allowed");
        return;
    }
    if (ntokens != (size_t)(c->noreply ? 3 : 2) &&
        !mcSafeStrtol(tokens[1].value, &exptime)) {
        mcConnOutString(c, "CLIENT_ERROR invalid exptime argument");
        return;
    }
    uint32_t new_oldest = exptime > 0 ? cacheRealtime(cache, exptime)
                                      : cache->current_time;
    if (cache->use_cas) {
        cache->oldest_live = new_oldest - 1;
        if (cache->oldest_live <= cache->current_time)
            cache->oldest_cas = cacheNextCas(cache);
    } else {
        cache->oldest_live = new_oldest;
    }
    s->settings.oldest_live = cache->oldest_live;
    mcConnOutString(c, "OK");
}

/* verbosity level [noreply]: only shown by stats settings here. */
static void _processVerbosity(mcConn *c, mcToken *tokens, size_t ntokens) {
    uint32_t level;
    _setNoreplyMaybe(c, tokens, ntokens);
    if (!mcSafeStrtoul(tokens[1].value, &level)) {
        mcConnOutString(c, "CLIENT_ERROR bad command line format");
        return;
    }
    c->srv->settings.verbose = level > 2 ? 2 : (int32_t)level;
    mcConnOutString(c, "OK");
}

/* cache_memlimit <megabytes>: moves -m at run time. Pages already taken
 * stay; the limit only decides whether new ones can be. */
static void _processMemlimit(mcConn *c, mcToken *tokens, size_t ntokens) {
    mcServer *s = c->srv;
    uint32_t memlimit;
    _setNoreplyMaybe(c, tokens, ntokens);
    if (!mcSafeStrtoul(tokens[1].value, &memlimit)) {
        mcConnOutString(c, "ERROR");
    } else if (memlimit < 8) {
        mcConnOutString(c, "MEMLIMIT_TOO_SMALL cannot set maxbytes to less "
                        "than 8m");
    } else if (memlimit > 1000000000) {
        mcConnOutString(c, "MEMLIMIT_ADJUST_FAILED input value is megabytes "
                        "not bytes");
    } else {
        s->settings.maxbytes = (uint64_t)memlimit * 1024 * 1024;
        s->cache.slabs.mem_limit = s->settings.maxbytes;
        s->cache.slabs.mem_limit_reached = 0;
        mcConnOutString(c, "OK");
    }
}

/* shutdown: a node cannot stop the world; when enabled (-A) it closes
 * the connection, which is what its client sees of a shutdown. */
static void _processShutdown(mcConn *c, mcToken *tokens, size_t ntokens) {
    if (!c->srv->settings.shutdown_command) {
        mcConnOutString(c, "ERROR: shutdown not enabled");
    } else if (ntokens == 2 || (ntokens == 3 &&
               !strcmp(tokens[KEY_TOKEN].value, "graceful"))) {
        mcConnClose(c);
    } else {
        mcConnOutString(c, "CLIENT_ERROR invalid shutdown mode");
    }
}

/* ---- Dispatch. ---- */

/* Replies ERROR unless min <= ntokens <= max (-1: no bound). */
static int _want(mcConn *c, size_t ntokens, long min, long max) {
    if ((min != -1 && (long)ntokens < min) ||
        (max != -1 && (long)ntokens > max)) {
        mcConnOutString(c, "ERROR");
        return 0;
    }
    return 1;
}

static int _is(mcToken *tokens, const char *name) {
    return !strcmp(tokens[0].value, name);
}

/* get, gets, gat, gats. */
static void _dispatchG(mcConn *c, mcToken *tokens, size_t ntokens) {
    if (!_want(c, ntokens, 3, -1)) return;
    if (_is(tokens, "get")) _processGet(c, tokens, 0, 0);
    else if (_is(tokens, "gets")) _processGet(c, tokens, 1, 0);
    else if (_is(tokens, "gat")) _processGet(c, tokens, 0, 1);
    else if (_is(tokens, "gats")) _processGet(c, tokens, 1, 1);
    else mcConnOutString(c, "ERROR");
}

/* The storage commands: which NREAD they are, 0 for none. */
static int _storageCommand(mcToken *tokens) {
    static const char *const names[] = {
        NULL, "add", "set", "replace", "append", "prepend", "cas"
    };
    for (int i = MC_NREAD_ADD; i <= MC_NREAD_CAS; i++)
        if (_is(tokens, names[i])) return i;
    return 0;
}

/* The commands matched on their first letter. Returns 0 if none was. */
static int _dispatchFirst(mcConn *c, mcToken *tokens, size_t ntokens) {
    char first = tokens[0].value[0];
    int comm = _storageCommand(tokens);
    if (comm == MC_NREAD_CAS) {
        if (_want(c, ntokens, 7, 8))
            _processUpdate(c, tokens, ntokens, comm, 1);
    } else if (comm) {
        if (_want(c, ntokens, 6, 7))
            _processUpdate(c, tokens, ntokens, comm, 0);
    } else if (first == 'g') {
        _dispatchG(c, tokens, ntokens);
    } else if (_is(tokens, "stats")) {
        mcProcessStats(c, tokens, ntokens);
    } else if (_is(tokens, "shutdown")) {
        _processShutdown(c, tokens, ntokens);
    } else if (_is(tokens, "cache_memlimit")) {
        if (_want(c, ntokens, 3, 4)) _processMemlimit(c, tokens, ntokens);
    } else if (_is(tokens, "incr") || _is(tokens, "decr")) {
        if (_want(c, ntokens, 4, 5))
            _processArithmetic(c, tokens, ntokens, first == 'i');
    } else if (_is(tokens, "delete")) {
        if (_want(c, ntokens, 3, 5)) _processDelete(c, tokens, ntokens);
    } else if (_is(tokens, "touch")) {
        if (_want(c, ntokens, 4, 5)) _processTouch(c, tokens, ntokens);
    } else if (strchr("sacidt", first)) {
        mcConnOutString(c, "ERROR");
    } else {
        return 0;
    }
    return 1;
}

/* The commands matched by name alone. */
static void _dispatchRest(mcConn *c, mcToken *tokens, size_t ntokens) {
    if (_is(tokens, "bget")) {
        if (_want(c, ntokens, 3, -1)) _processGet(c, tokens, 0, 0);
    } else if (_is(tokens, "flush_all")) {
        if (_want(c, ntokens, 2, 4)) _processFlushAll(c, tokens, ntokens);
    } else if (_is(tokens, "version")) {
        mcConnOutString(c, "VERSION " MC_VERSION);
    } else if (_is(tokens, "quit")) {
        c->state = MC_CONN_MWRITE;
        c->close_after_write = 1;
    } else if (_is(tokens, "verbosity")) {
        if (_want(c, ntokens, 3, 4)) _processVerbosity(c, tokens, ntokens);
    } else if (!strncmp(tokens[ntokens - 2].value, "HTTP/", 5)) {
        mcConnClose(c);
    } else {
        mcConnOutString(c, "ERROR");
    }
}

/* process_command_ascii: one command line, NUL-terminated, without its
 * line ending. The caller has set c->state to MC_CONN_NEW_CMD; storage
 * commands move it to NREAD or SWALLOW, quit to CLOSING. Of the meta
 * commands only "mn" is answered; they, lru_crawler, lru, watch, slabs
 * and extstore answer ERROR here. */
void mcProcessCommand(mcConn *c, char *command) {
    mcToken tokens[MC_MAX_TOKENS];
    size_t ntokens = mcTokenize(command, tokens, MC_MAX_TOKENS);
    if (ntokens < 2 || tokens[0].length < 2) {
        mcConnOutString(c, "ERROR");
        return;
    }
    if (tokens[0].value[0] == 'm' && tokens[0].length == 2) {
        if (!_is(tokens, "mn")) {
            mcConnOutString(c, "ERROR");
            return;
        }
        mcConnOutString(c, "MN");
        c->state = MC_CONN_MWRITE;      /* mn flushes the replies */
        return;
    }
    if (!_dispatchFirst(c, tokens, ntokens))
        _dispatchRest(c, tokens, ntokens);
}
