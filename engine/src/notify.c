/* notify.c -- keyspace notifications: a write names its event and its
 * class; the event goes out only when notify-keyspace-events enables
 * that class (none by default, as in Redis 7.0).
 *
 * An event is an ordinary Pub/Sub message on one or two channels:
 * __keyspace@<db>__:<key> carries the event's name ("set", "del" ...)
 * and __keyevent@<db>__:<event> carries the key. Nobody has to listen:
 * with no subscriber the message is simply dropped, but building and
 * matching it still costs every write something, which is why the
 * classes are off by default. */
#include <string.h>
#include "server.h"

/* The classes named by a notify-keyspace-events string, in Redis 7.0's
 * letters; -1 if a character names no class. */
int keyspaceEventsStringToFlags(const char *classes) {
    int flags = 0;
    for (const char *p = classes; *p; p++) {
        switch (*p) {
        case 'A': flags |= NOTIFY_ALL; break;
        case 'g': flags |= NOTIFY_GENERIC; break;
        case '$': flags |= NOTIFY_STRING; break;
        case 'l': flags |= NOTIFY_LIST; break;
        case 's': flags |= NOTIFY_SET; break;
        case 'h': flags |= NOTIFY_HASH; break;
        case 'z': flags |= NOTIFY_ZSET; break;
        case 'x': flags |= NOTIFY_EXPIRED; break;
        case 'e': flags |= NOTIFY_EVICTED; break;
        case 'K': flags |= NOTIFY_KEYSPACE; break;
        case 'E': flags |= NOTIFY_KEYEVENT; break;
        case 't': flags |= NOTIFY_STREAM; break;
        case 'm': flags |= NOTIFY_KEY_MISS; break;
        case 'd': flags |= NOTIFY_MODULE; break;
        case 'n': flags |= NOTIFY_NEW; break;
        default: return -1;
        }
    }
    return flags;
}

/* The canonical string of flags, as CONFIG GET shows it: "A" for all the
 * classes A covers (else their letters in a fixed order), then K, E and
 * m, which A leaves out. The caller frees the sds. */
sds keyspaceEventsFlagsToString(redisServer *s, int flags) {
    static const struct { int flag; char letter; } classes[] = {
        { NOTIFY_GENERIC, 'g' }, { NOTIFY_STRING, '$' },
        { NOTIFY_LIST, 'l' }, { NOTIFY_SET, 's' }, { NOTIFY_HASH, 'h' },
        { NOTIFY_ZSET, 'z' }, { NOTIFY_EXPIRED, 'x' },
        { NOTIFY_EVICTED, 'e' }, { NOTIFY_STREAM, 't' },
        { NOTIFY_MODULE, 'd' }, { NOTIFY_NEW, 'n' } };
    char buf[24];
    size_t n = 0;
    if ((flags & NOTIFY_ALL) == NOTIFY_ALL) {
        /* As 7.0 prints it: n, which A does not cover, is not shown
         * next to A (though it stays enabled). */
        buf[n++] = 'A';
    } else {
        for (size_t i = 0; i < sizeof(classes) / sizeof(classes[0]); i++)
            if (flags & classes[i].flag) buf[n++] = classes[i].letter;
    }
    if (flags & NOTIFY_KEYSPACE) buf[n++] = 'K';
    if (flags & NOTIFY_KEYEVENT) buf[n++] = 'E';
    if (flags & NOTIFY_KEY_MISS) buf[n++] = 'm';
    return sdsnewlen(s->mem, buf, n);
}

/* "<prefix><dbid>__:<name>" as a string object. */
static robj *_eventChannel(redisServer *s, const char *prefix, int dbid,
                           const char *name, size_t len) {
    sds ch = sdscatprintf(s->mem, sdsempty(s->mem), "%s%d__:", prefix, dbid);
    ch = sdscatlen(s->mem, ch, name, len);
    return createObject(s, OBJ_STRING, ch);
}

/* Publishes that event (of class type) happened to key in db dbid, on the
 * keyspace channel, the keyevent channel, or both, as the configuration
 * asks. Called by every write right after it changed the key. */
void notifyKeyspaceEvent(redisServer *s, int type, const char *event,
                         robj *key, int dbid) {
    int flags = s->cfg.notify_keyspace_events;
    if (!(flags & type) || s->notify_suppressed) return;
    robj *eventobj = createStringObject(s, event, strlen(event));
    if (flags & NOTIFY_KEYSPACE) {
        char buf[LONG_STR_SIZE];
        size_t len;
        const char *k = objectStrBytes(key, buf, &len);
        robj *ch = _eventChannel(s, "__keyspace@", dbid, k, len);
        pubsubPublishMessage(s, ch, eventobj, 0);
        decrRefCount(s, ch);
    }
    if (flags & NOTIFY_KEYEVENT) {
        robj *ch = _eventChannel(s, "__keyevent@", dbid, event,
                                 strlen(event));
        pubsubPublishMessage(s, ch, key, 0);
        decrRefCount(s, ch);
    }
    decrRefCount(s, eventobj);
}
