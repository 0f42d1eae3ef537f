/* dump.c -- DUMP and RESTORE: one value serialized as an RDB file holds
 * it, and rebuilt from that serialization.
 *
 * A DUMP payload is the value's RDB type byte and its RDB encoding (the
 * writer of rdb.c: intsets and listpacks whole, long strings LZF-
 * compressed), then a footer: the RDB version as 2 bytes little-endian
 * and the CRC-64 of everything before it, 8 bytes little-endian. RESTORE
 * takes a payload of any RDB version up to ours whose checksum is good.
 *
 * The value is rebuilt as the RDB loader of this engine rebuilds every
 * key: rdb.c reads it into the command that creates it (RPUSH, SADD,
 * HSET, ZADD or SET with all the elements), and that command runs as a
 * client of the server's own with no replies and no propagation. The
 * type's own code then picks the encoding from the configured limits,
 * as Redis's rdbLoadObject converts a loaded value that is over them.
 * What reaches the AOF and the replicas is the RESTORE itself. */
#include <string.h>
#include <strings.h>
#include "rdb.h"

/* The footer of a payload: 2 bytes of version and 8 of CRC-64. */
#define DUMP_FOOTER_LEN 10

/* verifyDumpPayload: whether the len bytes at p end in a footer with an
 * RDB version this server reads and the CRC-64 of what precedes the
 * checksum. */
int rdbPayloadValid(const unsigned char *p, size_t len) {
    if (len < DUMP_FOOTER_LEN) return 0;
    const unsigned char *footer = p + len - DUMP_FOOTER_LEN;
    unsigned version = (unsigned)footer[0] | (unsigned)footer[1] << 8;
    if (version > RDB_VERSION) return 0;
    uint64_t crc = crc64(0, p, len - 8), want = 0;
    for (int i = 0; i < 8; i++) want |= (uint64_t)footer[2 + i] << (8 * i);
    return crc == want;
}

/* DUMP key: the payload as a bulk string, or a null for a missing key. */
void dumpCommand(client *c) {
    redisServer *s = c->srv;
    robj *o = lookupKeyRead(c, c->argv[1]);
    if (!o) {
        addReplyNull(c);
        return;
    }
    addReplyBulkSds(c, rdbDumpPayload(s->mem, o));
}

/* The options after the payload. */
typedef struct restoreOpts {
    int replace, absttl;
    long long idle, freq;       /* -1: not given */
} restoreOpts;

/* Parses REPLACE, ABSTTL, IDLETIME seconds and FREQ frequency, in any
 * order; IDLETIME and FREQ exclude each other (the second one is a
 * syntax error). C_ERR once the error is replied. */
static int _parseRestoreOpts(client *c, restoreOpts *o) {
    o->replace = o->absttl = 0;
    o->idle = o->freq = -1;
    for (int j = 4; j < c->argc; j++) {
        const char *opt = c->argv[j]->v.ptr;
        int more = c->argc - j - 1;
        if (!strcasecmp(opt, "replace")) {
            o->replace = 1;
        } else if (!strcasecmp(opt, "absttl")) {
            o->absttl = 1;
        } else if (!strcasecmp(opt, "idletime") && more && o->freq == -1) {
            if (getLongLongFromObjectOrReply(c, c->argv[++j], &o->idle,
                                             NULL) != C_OK) return C_ERR;
            if (o->idle < 0) {
                addReplyError(c, "Invalid IDLETIME value, must be >= 0");
                return C_ERR;
            }
        } else if (!strcasecmp(opt, "freq") && more && o->idle == -1) {
            if (getLongLongFromObjectOrReply(c, c->argv[++j], &o->freq,
                                             NULL) != C_OK) return C_ERR;
            if (o->freq < 0 || o->freq > 255) {
                addReplyError(c, "Invalid FREQ value, must be >= 0 and "
                              "<= 255");
                return C_ERR;
            }
        } else {
            addReplyError(c, "syntax error");
            return C_ERR;
        }
    }
    return C_OK;
}

/* Runs the command argv (from rdbLoadValue) in db as a client of the
 * server's own: no reply, no propagation, nothing counted in the dirty
 * counter (RESTORE counts itself once). It creates the key, which the
 * caller has made sure is absent. */
static void _rebuild(redisServer *s, redisDb *db, int argc, robj **argv) {
    client *fake = memCalloc(s->mem, sizeof(*fake));
    long long dirty = s->dirty;
    fake->srv = s;
    fake->fd = -1;
    fake->db = db;
    fake->querybuf = sdsempty(s->mem);
    fake->bulklen = -1;
    fake->authenticated = 1;
    fake->flags = CLIENT_FAKE;
    fake->argv = argv;
    fake->argc = fake->argv_len = argc;
    fake->cmd = fake->lastcmd = lookupCommand(s, argv, argc);
    /* The commands that rebuild the value are not events: RESTORE
     * notifies "new" and "restore" itself. */
    s->notify_suppressed++;
    fake->cmd->proc(fake);
    s->notify_suppressed--;
    rdbFreeCommand(s, fake->argc, fake->argv);  /* maybe rewritten */
    sdsfree(s->mem, fake->querybuf);
    memFree(s->mem, fake);
    s->dirty = dirty;
}

/* RESTORE key ttl serialized-value [REPLACE] [ABSTTL] [IDLETIME seconds]
 * [FREQ frequency]: creates key from a DUMP payload, with a ttl in
 * milliseconds (0: none; with ABSTTL a unix time in ms). The checks run
 * in Redis's order: options, BUSYKEY, the ttl, the footer, the value.
 * A ttl already past creates nothing (and with REPLACE deletes the old
 * key, propagated as a DEL), except while loading. A relative ttl is
 * propagated as an absolute one: the ttl argument becomes the unix time
 * and ABSTTL is appended. IDLETIME or FREQ set the value's access data,
 * as OBJECT IDLETIME and FREQ then show it. */
void restoreCommand(client *c) {
    redisServer *s = c->srv;
    robj *key = c->argv[1];
    restoreOpts o;
    long long ttl;
    int argc;
    robj **argv;
    if (_parseRestoreOpts(c, &o) != C_OK) return;
    if (!o.replace && lookupKeyWrite(c, key)) {
        addReplyError(c, "-BUSYKEY Target key name already exists.");
        return;
    }
    if (getLongLongFromObjectOrReply(c, c->argv[2], &ttl, NULL) != C_OK)
        return;
    if (ttl < 0) {
        addReplyError(c, "Invalid TTL value, must be >= 0");
        return;
    }
    sds payload = c->argv[3]->v.ptr;
    if (!sdsEncodedObject(c->argv[3]) ||
        !rdbPayloadValid((unsigned char *)payload, sdslen(payload))) {
        addReplyError(c, "DUMP payload version or checksum are wrong");
        return;
    }
    /* The reader is handed the footer too, as Redis's is: a value that
     * runs into it is read from it. A stream is read into its object. */
    robj *sobj = NULL;
    argc = 0;
    argv = NULL;
    if (rdbIsStreamPayload(payload, sdslen(payload))
        ? rdbLoadStreamObject(s, payload, sdslen(payload), &sobj) != C_OK
        : rdbLoadValue(s, payload, sdslen(payload), key, &argc, &argv)
          != C_OK) {
        addReplyError(c, "Bad data format");
        return;
    }
    int deleted = o.replace && dbDelete(s, c->db, key);
    if (ttl && !o.absttl) ttl += s->mstime;
    if (ttl && ttl <= s->mstime && !s->loading) {
        if (sobj) decrRefCount(s, sobj);
        else rdbFreeCommand(s, argc, argv);
        if (deleted) {
            robj *del = createStringObject(s, "DEL", 3);
            rewriteClientCommandVector(c, 2, del, key);
            decrRefCount(s, del);
            signalModifiedKey(c, c->db, key);
            notifyKeyspaceEvent(s, NOTIFY_GENERIC, "del", key, c->db->id);
            s->dirty++;
        }
        addReplyOK(c);
        return;
    }
    if (sobj) {
        dbAdd(s, c->db, key, sobj);     /* notifies "new" */
    } else {
        _rebuild(s, c->db, argc, argv);
        notifyKeyspaceEvent(s, NOTIFY_NEW, "new", key, c->db->id);
    }
    if (ttl) {
        setExpire(c, c->db, key, ttl);
        if (!o.absttl) {
            robj *when = createStringObjectFromLongLong(s, ttl);
            robj *abs = createStringObject(s, "ABSTTL", 6);
            rewriteClientCommandArgument(c, 2, when);
            rewriteClientCommandArgument(c, c->argc, abs);
            decrRefCount(s, when);
            decrRefCount(s, abs);
        }
    }
    dictEntry *de = dictFind(c->db->dict, key->v.ptr);
    if (de)
        objectSetLRUOrLFU(s, dictGetVal(de), o.freq, o.idle, LRU_CLOCK(s),
                          1000);
    signalModifiedKey(c, c->db, key);
    notifyKeyspaceEvent(s, NOTIFY_GENERIC, "restore", key, c->db->id);
    addReplyOK(c);
    s->dirty++;
}
