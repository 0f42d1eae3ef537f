/* aofexports.c -- the AOF, disk, thread and crash calls for JavaScript.
 *
 * Same conventions as exports.c: 64-bit values cross as doubles and
 * structs as flat arrays of doubles, in the order documented on each
 * function (wasm/aof.ts mirrors it). Strings inside structs (file names,
 * thread names, the disk preset) are copied into a caller's buffer, each
 * NUL-terminated, at fixed offsets named below. */
#include <stdint.h>
#include <string.h>
#include <emscripten.h>
#include "glasskv.h"
#include "exportkit.h"

#define GKW_AOF_FIELDS 20        /* doubles from gkwAofGetInfo */
#define GKW_AOF_NAME 64          /* bytes per file name it copies */
#define GKW_THREAD_FIELDS 6      /* doubles per thread */
#define GKW_THREAD_NAME 24       /* bytes per thread name */
#define GKW_THREADS_MAX 8

/* Fills out with state, fsync, last_write_status, last_write_errno,
 * bio_fsync_status, rewrite_in_progress, selected_db, buffer_length,
 * current_size, base_size, fsync_offset, pending_bio_fsync, delayed_fsync,
 * flush_postponed_start, last_fsync, fed, written, acked, durable, and 0;
 * names gets the incr file's name at 0 and the base file's at
 * GKW_AOF_NAME (2 * GKW_AOF_NAME bytes). Returns gkAofGetInfo's status. */
EMSCRIPTEN_KEEPALIVE
int gkwAofGetInfo(gkWorld *w, int node, double *out, char *names) {
    gkAofInfo a;
    int status = gkAofGetInfo(w, node, &a);
    if (status != GK_OK) return status;
    const double v[GKW_AOF_FIELDS] = {
        a.state, a.fsync, a.last_write_status, a.last_write_errno,
        a.bio_fsync_status, a.rewrite_in_progress, a.selected_db,
        (double)a.buffer_length, (double)a.current_size,
        (double)a.base_size, (double)a.fsync_offset,
        (double)a.pending_bio_fsync, (double)a.delayed_fsync,
        (double)a.flush_postponed_start, (double)a.last_fsync,
        (double)a.fed, (double)a.written, (double)a.acked,
        (double)a.durable, 0 };
    memcpy(out, v, sizeof(v));
    gkwName(names, a.incr_file, GKW_AOF_NAME);
    gkwName(names + GKW_AOF_NAME, a.base_file, GKW_AOF_NAME);
    return GK_OK;
}

/* Fills out with GKW_THREAD_FIELDS doubles per thread (busy, pending,
 * busy_since, busy_until, jobs_done, busy_ns) and names with
 * GKW_THREAD_NAME bytes per thread, for at most GKW_THREADS_MAX threads.
 * Returns how many, or a negative status. */
EMSCRIPTEN_KEEPALIVE
int gkwServerThreads(gkWorld *w, int node, double *out, char *names) {
    gkThreadInfo t[GKW_THREADS_MAX];
    int n = 0;
    int status = gkServerThreads(w, node, t, GKW_THREADS_MAX, &n);
    if (status != GK_OK) return status;
    if (n > GKW_THREADS_MAX) n = GKW_THREADS_MAX;
    for (int i = 0; i < n; i++) {
        double *o = out + i * GKW_THREAD_FIELDS;
        o[0] = t[i].busy;
        o[1] = t[i].pending;
        o[2] = (double)t[i].busy_since;
        o[3] = (double)t[i].busy_until;
        o[4] = (double)t[i].jobs_done;
        o[5] = (double)t[i].busy_ns;
        gkwName(names + i * GKW_THREAD_NAME, t[i].name, GKW_THREAD_NAME);
    }
    return n;
}

/* Fills out with capacity, used, free_bytes, device_busy_until, queued,
 * files, written, durable_bytes, syncs, writebacks; preset gets the
 * preset's name (16 bytes). Returns gkDiskGetInfo's status. */
EMSCRIPTEN_KEEPALIVE
int gkwDiskGetInfo(gkWorld *w, int node, double *out, char *preset) {
    gkDiskInfo d;
    int status = gkDiskGetInfo(w, node, &d);
    if (status != GK_OK) return status;
    const double v[10] = {
        (double)d.capacity, (double)d.used, (double)d.free_bytes,
        (double)d.device_busy_until, d.queued, d.files, (double)d.written,
        (double)d.durable_bytes, (double)d.syncs, (double)d.writebacks };
    memcpy(out, v, sizeof(v));
    gkwName(preset, d.preset, sizeof(d.preset));
    return GK_OK;
}

/* Fills out with size, durable, dirty, syncing_until, dirty_since, inode,
 * open. Returns gkDiskFileInfo's status (GK_ENOTFOUND: no such file). */
EMSCRIPTEN_KEEPALIVE
int gkwDiskFileInfo(gkWorld *w, int node, const char *path, double *out) {
    gkDiskFile f;
    int status = gkDiskFileInfo(w, node, path, &f);
    if (status != GK_OK) return status;
    out[0] = (double)f.size;
    out[1] = (double)f.durable;
    out[2] = (double)f.dirty;
    out[3] = (double)f.syncing_until;
    out[4] = (double)f.dirty_since;
    out[5] = f.inode;
    out[6] = f.open;
    return GK_OK;
}

/* gkDiskSetFree with the byte count as a double. */
EMSCRIPTEN_KEEPALIVE
int gkwDiskSetFree(gkWorld *w, int node, double bytes) {
    return gkDiskSetFree(w, node, gkwU64(bytes));
}

/* gkDiskReadFile with the full size in *size as a double. */
EMSCRIPTEN_KEEPALIVE
int gkwDiskReadFile(gkWorld *w, int node, const char *path, int durable,
                    char *out, size_t cap, double *size) {
    size_t n = 0;
    int status = gkDiskReadFile(w, node, path, durable, out, cap, &n);
    *size = (double)n;
    return status;
}

/* gkServerCrashAt with the time (or trace sequence number) as a double. */
EMSCRIPTEN_KEEPALIVE
int gkwServerCrashAt(gkWorld *w, int node, double at, int kind, int flags) {
    return gkServerCrashAt(w, node, gkwU64(at), kind, flags);
}

/* gkServerCrashAtEvent with a and b as ints (-1: any). */
EMSCRIPTEN_KEEPALIVE
int gkwServerCrashAtEvent(gkWorld *w, int node, int kind, int type, int a,
                          int b, int flags) {
    return gkServerCrashAtEvent(w, node, kind, type, a, b, flags);
}

/* gkServerLogRead with the sequence numbers as doubles: the bytes copied,
 * and *last the sequence number of the last line read. */
EMSCRIPTEN_KEEPALIVE
double gkwServerLogRead(gkWorld *w, int node, double after, char *out,
                        size_t cap, double *last) {
    uint64_t seq = 0;
    size_t n = gkServerLogRead(w, node, gkwU64(after), out, cap, &seq);
    *last = (double)seq;
    return (double)n;
}
