/* bitops.c -- bit commands on string values: SETBIT and GETBIT.
 *
 * A string is read as a bit array, most significant bit of byte 0 first:
 * bit offset N lives in byte N/8, at bit position 7 - N%8 of that byte.
 * Setting a bit past the end grows the string with zero bytes, so
 * SETBIT key 100000 1 on a missing key allocates 12.5 KB at once; the
 * offset is capped, as Redis caps it, so that the string never passes
 * proto-max-bulk-len. */
#include <string.h>
#include "server.h"

#define BIT_OFFSET_ERR "bit offset is not an integer or out of range"
#define BIT_VALUE_ERR "bit is not an integer or out of range"

/* Parses a bit offset: a non-negative integer whose byte lies inside
 * proto-max-bulk-len (not checked for the AOF loader). Returns C_ERR
 * after replying. */
static int _getBitOffsetOrReply(client *c, robj *o, uint64_t *offset) {
    char buf[LONG_STR_SIZE];
    size_t len;
    long long v;
    const char *p = objectStrBytes(o, buf, &len);
    if (!string2ll(p, len, &v) || v < 0 ||
        (!(c->flags & CLIENT_FAKE) &&
         (v >> 3) >= c->srv->cfg.proto_max_bulk_len)) {
        addReplyError(c, BIT_OFFSET_ERR);
        return C_ERR;
    }
    *offset = (uint64_t)v;
    return C_OK;
}

/* Returns the string at argv[1], raw and unshared, at least long enough
 * to hold bit maxbit, creating it (zeroed) if the key is missing. *grown
 * says whether the key was created or the string grew. Returns NULL after
 * replying WRONGTYPE. */
static robj *_lookupStringForBitCommand(client *c, uint64_t maxbit,
                                        int *grown) {
    redisServer *s = c->srv;
    size_t bytes = (size_t)(maxbit >> 3) + 1;
    robj *o = lookupKeyWrite(c, c->argv[1]);
    if (checkType(c, o, OBJ_STRING)) return NULL;
    if (o == NULL) {
        o = createRawStringObject(s, NULL, bytes);
        dbAdd(s, c->db, c->argv[1], o);
        *grown = 1;
        return o;
    }
    o = dbUnshareStringValue(c, c->argv[1], o);
    size_t before = sdslen(o->v.ptr);
    o->v.ptr = sdsGrowZero(s->mem, o->v.ptr, bytes);
    *grown = sdslen(o->v.ptr) != before;
    return o;
}

/* SETBIT key offset 0|1: the bit's previous value. A write that changes
 * nothing (same bit, string not grown) touches no watcher and is not
 * propagated; otherwise SETBIT is propagated as is. */
void setbitCommand(client *c) {
    uint64_t offset;
    long long on;
    int grown;
    robj *o;
    if (_getBitOffsetOrReply(c, c->argv[2], &offset) != C_OK) return;
    if (getLongFromObjectOrReply(c, c->argv[3], &on, BIT_VALUE_ERR) != C_OK)
        return;
    if (on & ~1LL) { addReplyError(c, BIT_VALUE_ERR); return; }
    if ((o = _lookupStringForBitCommand(c, offset, &grown)) == NULL) return;
    unsigned char *byte = (unsigned char *)o->v.ptr + (offset >> 3);
    int mask = 1 << (7 - (int)(offset & 7));
    int old = (*byte & mask) != 0;
    if (grown || old != on) {
        if (on) *byte |= (unsigned char)mask;
        else *byte &= (unsigned char)~mask;
        signalModifiedKey(c, c->db, c->argv[1]);
        notifyKeyspaceEvent(c->srv, NOTIFY_STRING, "setbit", c->argv[1],
                            c->db->id);
        c->srv->dirty++;
    }
    addReplyLongLong(c, old);
}

/* GETBIT key offset: the bit, 0 past the end of the string or for a
 * missing key. An INT value is read as its decimal text. */
void getbitCommand(client *c) {
    char buf[LONG_STR_SIZE];
    uint64_t offset;
    size_t len;
    robj *o;
    if (_getBitOffsetOrReply(c, c->argv[2], &offset) != C_OK) return;
    o = lookupKeyReadOrReply(c, c->argv[1], ":0\r\n");
    if (o == NULL || checkType(c, o, OBJ_STRING)) return;
    const char *p = objectStrBytes(o, buf, &len);
    uint64_t byte = offset >> 3;
    int bit = 0;
    if (byte < len)
        bit = ((unsigned char)p[byte] & (1 << (7 - (int)(offset & 7)))) != 0;
    addReplyLongLong(c, bit);
}
