/* stream.h -- Redis 7.0's stream type: a radix tree of listpack nodes.
 *
 * A stream is a log of entries, each a set of field-value pairs named by
 * an ID <ms>-<seq> that only grows. The entries live in listpacks of at
 * most stream-node-max-entries entries and stream-node-max-bytes bytes,
 * each the value of a radix tree key: the 128-bit big-endian ID of its
 * first entry (the "master ID"). t_stream.c has the listpack layout.
 * Consumer groups keep, per group, the last ID delivered, the pending
 * entries list (PEL: delivered, not acknowledged) and the consumers, each
 * with its own PEL whose entries are shared with the group's. */
#ifndef GK_STREAM_H
#define GK_STREAM_H

#include <stdint.h>
#include "sds.h"
#include "rax.h"
#include "listpack.h"

struct client;
struct redisServer;
struct robj;

typedef struct streamID {
    uint64_t ms;        /* unix ms */
    uint64_t seq;       /* sequence within the ms */
} streamID;

typedef struct stream {
    rax *rax;                   /* master ID -> listpack node */
    uint64_t length;            /* live entries */
    streamID last_id;           /* the greatest ID ever added (or set) */
    streamID first_id;          /* the first live entry, 0-0 if none */
    streamID max_deleted_entry_id;  /* the greatest ID deleted */
    uint64_t entries_added;     /* entries ever added */
    rax *cgroups;               /* group name -> streamCG, or NULL */
} stream;

/* The flags of an entry in a node. */
#define STREAM_ITEM_FLAG_NONE 0
#define STREAM_ITEM_FLAG_DELETED (1 << 0)   /* a tombstone */
#define STREAM_ITEM_FLAG_SAMEFIELDS (1 << 1) /* the master entry's fields */

/* A walk over the entries between two IDs, either way. */
typedef struct streamIterator {
    stream *stream;
    streamID master_id;         /* the current node's master ID */
    uint64_t master_fields_count;
    unsigned char *master_fields_start; /* the master's first field */
    unsigned char *master_fields_ptr;   /* the next master field to emit */
    int entry_flags;            /* the current entry's */
    int rev;                    /* last to first */
    int skip_tombstones;        /* deleted entries are not emitted */
    unsigned char start_key[16], end_key[16];  /* the range, encoded */
    raxIterator ri;
    unsigned char *lp;          /* the current node, NULL before one */
    unsigned char *lp_ele;      /* the cursor in it */
    unsigned char *lp_flags;    /* the current entry's flags element */
    unsigned char field_buf[LP_INTBUF_SIZE];
    unsigned char value_buf[LP_INTBUF_SIZE];
} streamIterator;

#define SCG_INVALID_ENTRIES_READ -1

typedef struct streamCG {
    streamID last_id;           /* the last ID delivered to the group */
    long long entries_read;     /* its logical position, or -1 unknown */
    rax *pel;                   /* ID -> streamNACK */
    rax *consumers;             /* name -> streamConsumer */
} streamCG;

typedef struct streamConsumer {
    long long seen_time;        /* unix ms of its last activity */
    sds name;
    rax *pel;                   /* ID -> the group's streamNACK */
} streamConsumer;

typedef struct streamNACK {
    long long delivery_time;    /* unix ms of the last delivery */
    uint64_t delivery_count;
    streamConsumer *consumer;   /* who it was last delivered to */
} streamNACK;

/* XREADGROUP, XCLAIM and XAUTOCLAIM propagate what they change: the key
 * and the group name. */
typedef struct streamPropInfo {
    struct robj *keyname;
    struct robj *groupname;
} streamPropInfo;

/* streamReplyWithRange's flags. */
#define STREAM_RWR_NOACK (1 << 0)       /* deliver without a PEL entry */
#define STREAM_RWR_RAWENTRIES (1 << 1)  /* no array header around */
#define STREAM_RWR_HISTORY (1 << 2)     /* the consumer's own PEL */

/* streamLookupConsumer / streamCreateConsumer flags. */
#define SLC_DEFAULT 0
#define SLC_NO_REFRESH (1 << 0)
#define SCC_DEFAULT 0
#define SCC_NO_NOTIFY (1 << 0)
#define SCC_NO_DIRTIFY (1 << 1)

/* XADD/XTRIM's trimming. */
#define TRIM_STRATEGY_NONE 0
#define TRIM_STRATEGY_MAXLEN 1
#define TRIM_STRATEGY_MINID 2

typedef struct streamAddTrimArgs {
    streamID id;                /* XADD's explicit ID */
    int id_given, seq_given;    /* not "*"; not "<ms>-*" */
    int no_mkstream;
    int trim_strategy;          /* TRIM_STRATEGY_* */
    int trim_strategy_arg_idx;  /* argv index of the threshold */
    int approx_trim;            /* "~": whole nodes only */
    long long limit;            /* entries to trim at most, 0: no limit */
    long long maxlen;
    streamID minid;
} streamAddTrimArgs;

/* Longest "<ms>-<seq>": two 20-digit numbers and a dash. */
#define STREAM_ID_STR_LEN 44

/* t_stream.c: the data structure. */
stream *streamNew(struct redisServer *s);
void freeStream(struct redisServer *s, stream *st);
struct robj *streamDup(struct redisServer *s, struct robj *o);
void streamEncodeID(void *buf, const streamID *id);
void streamDecodeID(const void *buf, streamID *id);
int streamCompareID(const streamID *a, const streamID *b);
int streamIncrID(streamID *id);
int streamDecrID(streamID *id);
int streamIDEqZero(const streamID *id);
int streamIDToString(char *buf, const streamID *id);
int streamAppendItem(struct redisServer *s, stream *st, struct robj **argv,
                     int64_t numfields, streamID *added_id,
                     streamID *use_id, int seq_given);
void streamIteratorStart(streamIterator *si, stream *st, streamID *start,
                         streamID *end, int rev);
int streamIteratorGetID(streamIterator *si, streamID *id,
                        int64_t *numfields);
void streamIteratorGetField(streamIterator *si, unsigned char **fieldptr,
                            unsigned char **valueptr, int64_t *fieldlen,
                            int64_t *valuelen);
void streamIteratorRemoveEntry(struct redisServer *s, streamIterator *si,
                               streamID *current);
void streamIteratorStop(streamIterator *si);
int streamEntryExists(stream *st, streamID *id);
int streamDeleteItem(struct redisServer *s, stream *st, streamID *id);
void streamGetEdgeID(stream *st, int first, int skip_tombstones,
                     streamID *edge_id);
void streamLastValidID(stream *st, streamID *maxid);
int64_t streamTrim(struct redisServer *s, stream *st,
                   streamAddTrimArgs *args);
int streamRangeHasTombstones(stream *st, streamID *start, streamID *end);
long long streamEstimateDistanceFromFirstEverEntry(stream *st,
                                                   streamID *id);
streamCG *streamCreateCG(struct redisServer *s, stream *st, const char *name,
                         size_t namelen, streamID *id,
                         long long entries_read);
void streamFreeCG(struct redisServer *s, streamCG *cg);
streamCG *streamLookupCG(stream *st, sds groupname);
streamNACK *streamCreateNACK(struct redisServer *s,
                             streamConsumer *consumer);
streamConsumer *streamNewConsumer(struct redisServer *s, streamCG *cg,
                                  const char *name, size_t len,
                                  long long seen_time);
streamConsumer *streamLookupConsumer(struct redisServer *s, streamCG *cg,
                                     sds name, int flags);
void streamDelConsumer(struct redisServer *s, streamCG *cg,
                       streamConsumer *consumer);
int streamValidateListpackIntegrity(unsigned char *lp, size_t size,
                                    int deep);
size_t streamMemoryUsage(struct robj *o, long long samples);

#endif
