/* labs.h -- what a lab writes its figures into (labs.c runs them). */
#ifndef GK_LABS_H
#define GK_LABS_H

#include <stddef.h>
#include <stdint.h>

typedef struct labOut {
    char *buf;
    size_t cap, len;            /* len may pass cap: the caller retries */
} labOut;

void labEmit(labOut *o, const char *fmt, ...);
void labAsk(struct gkWorld *w, int conn, const char *cmd, char *out,
            size_t cap);
struct gkWorld *labWorld(uint64_t seed, uint32_t trace_mask,
                         uint32_t capacity);
uint64_t labLogCount(struct gkWorld *w, int node, const char *needle);

/* labs_aof.c */
int labAofNotAWal(labOut *o, uint64_t seed);
int labFsyncPolicies(labOut *o, uint64_t seed);
int labDiskFull(labOut *o, uint64_t seed);
int labAofBenchmark(labOut *o, uint64_t seed);

/* labs_eval.c */
int labEvalVsZcard(labOut *o, uint64_t seed);

/* workload.c */
int workloadDone(struct gkWorld *w, int id);
long respLen(const char *p, size_t len);

/* labs_slow.c */
int labSlowCommand(labOut *o, uint64_t seed);

/* labs_repl.c */
int labReplicationStar(labOut *o, uint64_t seed);
int labReplicationChain(labOut *o, uint64_t seed);
int labReplicationFailures(labOut *o, uint64_t seed);
int labPartialVsFullResync(labOut *o, uint64_t seed);

/* labs_net.c */
int labEphemeralPortClash(labOut *o, uint64_t seed);

/* labs_mem.c */
int labEncodingsMemory(labOut *o, uint64_t seed);

/* labs_mc.c */
int labSlabClasses(labOut *o, uint64_t seed);
int labItemPlacement(labOut *o, uint64_t seed);
int labSlabCalcification(labOut *o, uint64_t seed);

#endif
