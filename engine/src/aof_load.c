/* aof_load.c -- reading the AOF back when the server starts: the
 * manifest, then the base file (an RDB snapshot, or commands) and the
 * incr files, each replayed command by command through a fake client, as
 * Redis 7.0's loadAppendOnlyFiles does.
 *
 * What a crash leaves at the end of the last incr file is usually half a
 * command: the write(2) that carried it was cut by the power loss, or the
 * kernel had written back only part of the page cache. With
 * aof-load-truncated yes (the default) the file is cut back to the end of
 * the last whole command -- or to before an unfinished MULTI -- and the
 * server starts with everything up to there: a prefix of what it had
 * acknowledged, never something it had not. */
#include <string.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>
#include "server.h"
#include "script.h"
#include "rdb.h"

#define AOF_ANNOTATION_LINE_MAX_LEN 1024
#define MANIFEST_MAX_LINE 1024

/* ---- The manifest. ---- */

/* Appends a file to a manifest list. */
static void _addInfo(redisServer *s, aofInfo **list, int *n, const char *name,
                     long long seq, char type) {
    *list = memRealloc(s->mem, *list, sizeof(aofInfo) * (size_t)(*n + 1));
    aofInfo *ai = &(*list)[(*n)++];
    ai->file_name = sdsnew(s->mem, name);
    ai->file_seq = seq;
    ai->file_type = type;
}

/* A sequence number as Redis reads it (atoll), but defined for any
 * text: strtoll saturates at LLONG_MAX and LLONG_MIN where a plain atoll
 * may overflow. glibc's atoll is strtoll, so this is what Redis sees. */
static long long _parseSeq(const char *text) {
    return strtoll(text, NULL, 10);
}

/* Adds one parsed line to the manifest; NULL or the error. */
static const char *_manifestLine(redisServer *s, aofManifest *am,
                                 sds *words,
                                 int argc, long long *maxseq) {
    const char *name = NULL;
    long long seq = 0;
    char type = 0;
    if (argc < 6 || argc % 2) return "Invalid AOF manifest file format";
    for (int i = 0; i < argc; i += 2) {
        if (!strcasecmp(words[i], "file")) name = words[i + 1];
        else if (!strcasecmp(words[i], "seq")) seq = _parseSeq(words[i + 1]);
        else if (!strcasecmp(words[i], "type")) type = words[i + 1][0];
    }
    if (name && strchr(name, '/')) return "File can't be a path, just a "
                                          "filename";
    if (!name || !seq || !type) return "Invalid AOF manifest file format";
    if (type == AOF_FILE_TYPE_BASE) {
        if (am->base) return "Found duplicate base file information";
        aofInfo *b = NULL;
        int one = 0;
        _addInfo(s, &b, &one, name, seq, type);
        am->base = b;
        am->curr_base_file_seq = seq;
    } else if (type == AOF_FILE_TYPE_HIST) {
        _addInfo(s, &am->hist, &am->nhist, name, seq, type);
    } else if (type == AOF_FILE_TYPE_INCR) {
        if (seq <= *maxseq) return "Found a non-monotonic sequence number";
        _addInfo(s, &am->incr, &am->nincr, name, seq, type);
        am->curr_incr_file_seq = seq;
        *maxseq = seq;
    } else {
        return "Unknown AOF file type";
    }
    return NULL;
}

/* Takes the next line of buf (as fgets with a MANIFEST_MAX_LINE+1
 * buffer would). Returns its length, 0 at the end. */
static size_t _nextLine(const char *buf, size_t len, size_t *pos,
                        char *line, size_t cap) {
    size_t n = 0;
    while (*pos < len && n < cap - 1) {
        char ch = buf[(*pos)++];
        line[n++] = ch;
        if (ch == '\n') break;
    }
    line[n] = '\0';
    return n;
}

/* Logs a manifest error as Redis does, then exits. */
static void _manifestFatal(redisServer *s, const char *err, int linenum,
                           const char *line) {
    serverLog(s, LL_WARNING, "\n*** FATAL AOF MANIFEST FILE ERROR ***\n");
    if (line) {
        serverLog(s, LL_WARNING, "Reading the manifest file, at line %d\n",
                  linenum);
        serverLog(s, LL_WARNING, ">>> '%s'\n", line);
    }
    serverLog(s, LL_WARNING, "%s\n", err);
    s->fs.exit(s->fs.ctx);
}

/* Trims " \t\r\n" from both ends of line, in place. */
static char *_trim(char *line) {
    size_t n = strlen(line);
    while (n && strchr(" \t\r\n", line[n - 1])) line[--n] = '\0';
    while (*line && strchr(" \t\r\n", *line)) line++;
    return line;
}

/* aofLoadManifestFromFile: NULL after logging and exiting on any error. */
static aofManifest *_parseManifest(redisServer *s, const char *buf,
                                   size_t len) {
    char raw[MANIFEST_MAX_LINE + 2];
    aofManifest *am = aofManifestCreate(s);
    size_t pos = 0;
    int linenum = 0;
    long long maxseq = 0;
    while (_nextLine(buf, len, &pos, raw, sizeof(raw))) {
        linenum++;
        if (raw[0] == '#') continue;
        const char *err = NULL;
        char *line = raw;
        if (!strchr(raw, '\n')) {
            err = "The AOF manifest file contains too long line";
        } else {
            line = _trim(raw);
            sds *words = NULL;
            int argc = *line ? splitArgs(s, line, &words) : -1;
            err = argc < 0 ? "Invalid AOF manifest file format"
                           : _manifestLine(s, am, words, argc, &maxseq);
            if (argc >= 0) splitArgsRelease(s, words, argc);
        }
        if (err) {
            _manifestFatal(s, err, linenum, line);
            aofManifestRelease(s, am);
            return NULL;
        }
    }
    if (linenum == 0) {
        _manifestFatal(s, "Found an empty AOF manifest", 0, NULL);
        aofManifestRelease(s, am);
        return NULL;
    }
    return am;
}

/* aofLoadManifestFromDisk: no directory or no manifest is not an error
 * (a fresh start). */
static void _loadManifestFromDisk(redisServer *s) {
    char name[300];
    snprintf(name, sizeof(name), "%s.manifest", s->cfg.appendfilename);
    sds path = aofPath(s, name), data = NULL;
    int r = s->fs.readFile(s->fs.ctx, path, s->mem, &data);
    sdsfree(s->mem, path);
    if (r == -FS_ENOENT) return;
    if (r < 0) {
        serverLog(s, LL_WARNING, "Fatal error: can't open the AOF manifest "
                  "file %s for reading: %s", name, aofStrerror(-r));
        s->fs.exit(s->fs.ctx);
        return;
    }
    aofManifest *am = _parseManifest(s, data, sdslen(data));
    sdsfree(s->mem, data);
    if (!am) return;
    aofManifestRelease(s, s->aof.manifest);
    s->aof.manifest = am;
}

/* ---- Replaying a file. ---- */

/* processCommand's arity rule. Redis 7.0's loader skips it and runs the
 * command as it comes, so "SET k" in a hand-edited file has setCommand
 * read an argv[2] past the end of its array. I refuse the file instead,
 * as for an unknown command: a server never writes such a command, so
 * the file is not one it wrote. A container command (CONFIG, OBJECT...)
 * alone also fails here, which keeps its missing handler from running. */
static int _arityOk(const redisCommand *cmd, int argc) {
    if (cmd->arity > 0) return argc == cmd->arity;
    return argc >= -cmd->arity;
}

/* Runs one loaded command as the fake client (queued if in MULTI), as
 * the loader does: no call(), so nothing is propagated. argv (owned by
 * the client from here) is freed after. C_ERR for an unknown command. */
static int _runLoaded(client *c, int argc, robj **argv, const char *file,
                      int *was_multi) {
    redisServer *s = c->srv;
    c->argv = argv;
    c->argc = c->argv_len = argc;
    const redisCommand *cmd = lookupCommand(s, argv, argc);
    if (!cmd) {
        serverLog(s, LL_WARNING, "Unknown command '%s' reading the append "
                  "only file %s", (char *)argv[0]->v.ptr, file);
        freeClientArgv(c);
        return C_ERR;
    }
    if (!_arityOk(cmd, argc)) {
        serverLog(s, LL_WARNING, "Wrong number of arguments for '%s' "
                  "command reading the append only file %s", cmd->fullname,
                  file);
        freeClientArgv(c);
        return C_ERR;
    }
    *was_multi = cmd->proc == multiCommand;
    c->cmd = c->lastcmd = cmd;
    s->denv.cpu_ns += s->cmd_cost_ns;
    if ((c->flags & CLIENT_MULTI) && cmd->proc != execCommand)
        queueMultiCommand(c);           /* takes argv */
    else
        cmd->proc(c);
    if (c->argv) {                      /* maybe rewritten by the command */
        freeClientArgv(c);
        memFree(s->mem, c->argv);
    }
    c->argv = NULL;
    c->argc = c->argv_len = 0;
    return C_OK;
}

/* A command of the RDB base, as rdbLoadCommands hands it over. */
static int _execRdb(void *ctx, int dbid, int argc, robj **argv) {
    client *c = ctx;
    int was_multi;
    robj **copy = memAlloc(c->srv->mem, sizeof(robj *) * (size_t)argc);
    for (int j = 0; j < argc; j++)      /* fresh: commands re-encode them */
        copy[j] = dupStringObject(c->srv, argv[j]);
    c->db = &c->srv->db[dbid];
    /* A key read from an RDB file is no event, as in Redis (only the
     * commands of an AOF are). */
    c->srv->notify_suppressed++;
    int st = _runLoaded(c, argc, copy, "RDB base", &was_multi);
    c->srv->notify_suppressed--;
    return st;
}

/* ---- An RDB file (DEBUG RELOAD). ---- */

static void _logRdb(redisServer *s, const rdbLoadInfo *info);

typedef struct rdbFileLoad {
    client *fake;
    int replace;                /* a key already there is replaced */
    int duplicate;              /* one was there, and may not be */
    long long expired;          /* keys skipped as already expired */
} rdbFileLoad;

/* One key of the file, its value command then maybe a PEXPIREAT. A key
 * whose time has passed is not kept, as a master's rdbLoad skips it. */
static int _execFileKey(void *ctx, int dbid, int argc, robj **argv) {
    rdbFileLoad *fl = ctx;
    redisServer *s = fl->fake->srv;
    redisDb *db = &s->db[dbid];
    if (!strcasecmp(argv[0]->v.ptr, "function")) {
        /* A library, which may be there already only with MERGE. */
        sds err = NULL;
        sds name = functionsCreateLibrary(s, argv[3]->v.ptr, fl->replace, 0,
                                          &err);
        if (!name) {
            serverLog(s, LL_WARNING, "Failed loading library, %s", err);
            sdsfree(s->mem, err);
            return C_ERR;
        }
        sdsfree(s->mem, name);
        return C_OK;
    } else if (!strcasecmp(argv[0]->v.ptr, "pexpireat")) {
        long long when;
        /* A replica keeps them: its master's DELs will come. */
        if (!s->masterhost &&
            getLongLongFromObject(argv[2], &when) == C_OK &&
            when < s->mstime) {
            dbDelete(s, db, argv[1]);
            fl->expired++;
            return C_OK;
        }
    } else if (dbExists(db, argv[1])) {
        if (!fl->replace) {
            fl->duplicate = 1;
            return C_ERR;
        }
        dbDelete(s, db, argv[1]);
    }
    return _execRdb(fl->fake, dbid, argc, argv);
}

/* rdbLoad, for DEBUG RELOAD: adds the keys of the RDB file filename, in
 * the server's directory, to the dataset, as commands run by a client of
 * the loader's (nothing is propagated). A key already in the dataset is
 * replaced with replace (MERGE); without it the load stops there, where
 * Redis would stop the process. Returns C_ERR if the file cannot be read,
 * is not a good RDB or has such a key; the keys read before stay. */
int rdbLoadFile(redisServer *s, const char *filename, int replace) {
    sds data = NULL;
    rdbLoadInfo info;
    if (s->fs.readFile(s->fs.ctx, filename, s->mem, &data) < 0) return C_ERR;
    client *fake = createDetachedClient(s, CLIENT_FAKE | CLIENT_DENY_BLOCKING,
                                        0);
    rdbFileLoad fl = { fake, replace, 0, 0 };
    int loading = s->loading, st;
    s->loading = 1;
    st = rdbLoadCommands(s, data, sdslen(data), _execFileKey, &fl, &info);
    s->loading = loading;
    freeDetachedClient(fl.fake);
    sdsfree(s->mem, data);
    s->rdb_last_load_keys_expired = fl.expired;
    s->rdb_last_load_keys_loaded = st == C_OK ? info.keys - fl.expired : 0;
    if (st == C_OK) {
        info.keys -= fl.expired;
        _logRdb(s, &info);
        memcpy(s->rdb_repl_id, info.repl_id, sizeof(s->rdb_repl_id));
        s->rdb_repl_offset = info.repl_offset;
        s->rdb_repl_stream_db = info.repl_stream_db;
    } else if (fl.duplicate) {
        serverLog(s, LL_WARNING, "RDB has duplicated key in DB");
    } else {
        serverLog(s, LL_WARNING, "%s", info.err);
    }
    return st;
}

/* The state of a file being read. */
typedef struct aofReader {
    const char *buf;
    size_t len, pos;
} aofReader;

#define READ_OK 0
#define READ_EOF 1          /* the file ended inside a command */
#define READ_FMT 2          /* bytes that are not a command */
#define READ_OOM 3          /* no memory for the arguments */

/* Reads one argument: "$len\r\n" then len bytes and CRLF. */
static int _readArg(redisServer *s, aofReader *r, robj **out) {
    char line[AOF_ANNOTATION_LINE_MAX_LEN];
    if (!_nextLine(r->buf, r->len, &r->pos, line, sizeof(line)))
        return READ_EOF;
    if (line[0] != '$') return READ_FMT;
    /* strtoll, not strtol: the same bound with a 32-bit long (wasm). A
     * length past the end is a short read, as fread finds it in Redis. */
    long long len = strtoll(line + 1, NULL, 10);
    if (len < 0 || (unsigned long long)len > r->len - r->pos)
        return READ_EOF;
    robj *o = createStringObject(s, r->buf + r->pos, (size_t)len);
    r->pos += (size_t)len;
    if (r->len - r->pos < 2) { decrRefCount(s, o); return READ_EOF; }
    r->pos += 2;
    *out = o;
    return READ_OK;
}

/* Frees the first n arguments of v, and v. */
static void _freeArgs(redisServer *s, robj **v, int n) {
    for (int k = 0; k < n; k++) decrRefCount(s, v[k]);
    memFree(s->mem, v);
}

/* Reads the n arguments of a command into a new array. The count comes
 * from the file, so I do not allocate it up front as Redis does: a
 * "*2000000000" would ask for 16 GB before the first argument shows it
 * is a lie. The array doubles as arguments arrive instead, so its size
 * is bounded by what the file really holds. */
static int _readArgs(redisServer *s, aofReader *r, int n, robj ***argv) {
    int cap = n < 8 ? n : 8;
    robj **v = memTryAlloc(s->mem, sizeof(robj *) * (size_t)cap);
    for (int j = 0; v && j < n; j++) {
        if (j == cap) {
            cap = cap > n / 2 ? n : cap * 2;
            robj **nv = memTryRealloc(s->mem, v, sizeof(robj *) * (size_t)cap);
            if (!nv) { _freeArgs(s, v, j); return READ_OOM; }
            v = nv;
        }
        int st = _readArg(s, r, &v[j]);
        if (st != READ_OK) { _freeArgs(s, v, j); return st; }
    }
    if (!v) return READ_OOM;
    *argv = v;
    return READ_OK;
}

/* Reads one command. Returns READ_OK with *argc 0 at a clean end. */
static int _readCommand(redisServer *s, aofReader *r, int *argc,
                        robj ***argv) {
    char line[AOF_ANNOTATION_LINE_MAX_LEN];
    *argc = 0;
    do {
        if (!_nextLine(r->buf, r->len, &r->pos, line, sizeof(line)))
            return READ_OK;
    } while (line[0] == '#');
    if (line[0] != '*') return READ_FMT;
    if (line[1] == '\0') return READ_EOF;
    /* atoi as glibc does it (strtol cast to int), written so that it is
     * defined and the same with a 32-bit long: "*4294967297" is 1 here as
     * in Redis, and a count past LLONG_MAX reads as -1. */
    int n = (int)strtoll(line + 1, NULL, 10);
    if (n < 1) return READ_FMT;
    int st = _readArgs(s, r, n, argv);
    if (st == READ_OK) *argc = n;
    return st;
}

/* The log lines of an RDB base (rdbLoad's). */
static void _logRdb(redisServer *s, const rdbLoadInfo *info) {
    serverLog(s, LL_NOTICE, "Loading RDB produced by version %s",
              info->version);
    if (info->ctime >= 0)
        serverLog(s, LL_NOTICE, "RDB age %lld seconds",
                  s->mstime / 1000 - info->ctime);
    if (info->used_mem >= 0)
        serverLog(s, LL_NOTICE, "RDB memory usage when created %.2f Mb",
                  (double)info->used_mem / (1024 * 1024));
    if (info->aof_base) serverLog(s, LL_NOTICE, "RDB is base AOF");
    serverLog(s, LL_NOTICE, "Done loading RDB, keys loaded: %lld, keys "
              "expired: 0.", info->keys);
}

/* Logs why the RDB part failed, as Redis does. Corrupt data ends the
 * process right where it is found (rdbReportCorruptRDB exits), so only
 * the other failures reach the AOF loader's own line. A short read is
 * reported the way 7.0 reports it when no RDB file is being loaded by
 * name, which is the case for an AOF base. */
static void _logRdbError(redisServer *s, const rdbLoadInfo *info,
                         const char *name, int old_style) {
    if (info->err_kind == RDB_ERR_CORRUPT) {
        serverLog(s, LL_WARNING, "%s. Failure loading rdb format",
                  info->err);
        serverLog(s, LL_WARNING, "Terminating server after rdb file reading "
                  "failure.");
        return;
    }
    if (info->err_kind == RDB_ERR_SHORT) {
        serverLog(s, LL_WARNING, "Short read or OOM loading DB. "
                  "Unrecoverable error, aborting now.");
        serverLog(s, LL_WARNING, "%s. Failure loading rdb format from "
                  "socket, assuming connection error, resuming operation.",
                  info->err);
    } else {
        serverLog(s, LL_WARNING, "%s", info->err);
    }
    serverLog(s, LL_WARNING, old_style ? "Error reading the RDB preamble "
              "of the AOF file %s, AOF loading aborted" : "Error reading "
              "the RDB base file %s, AOF loading aborted", name);
}

/* The RDB at the start of a file. C_ERR if it is bad. */
static int _loadRdbPart(redisServer *s, client *fake, const char *name,
                        aofReader *r) {
    rdbLoadInfo info;
    int old_style = !strcmp(name, s->cfg.appendfilename);
    serverLog(s, LL_NOTICE, old_style ? "Reading RDB preamble from AOF "
              "file..." : "Reading RDB base file on AOF loading...");
    if (rdbLoadCommands(s, r->buf, r->len, _execRdb, fake, &info) != C_OK) {
        _logRdbError(s, &info, name, old_style);
        return C_ERR;
    }
    _logRdb(s, &info);
    fake->db = &s->db[0];
    r->pos = info.bytes;
    if (old_style) serverLog(s, LL_NOTICE, "Reading the remaining AOF "
                             "tail...");
    return C_OK;
}

/* The end of a file cut inside a command: with aof-load-truncated, cut
 * the file back to the last whole command. */
static int _truncated(redisServer *s, const char *name, const char *path,
                      long long valid) {
    if (s->cfg.aof_load_truncated) {
        serverLog(s, LL_WARNING, "!!! Warning: short read while loading the "
                  "AOF file %s!!!", name);
        serverLog(s, LL_WARNING, "!!! Truncating the AOF %s at offset %llu "
                  "!!!", name, (unsigned long long)valid);
        int fd = s->fs.open(s->fs.ctx, path, FS_O_WRONLY);
        int r = fd < 0 ? fd : s->fs.ftruncate(s->fs.ctx, fd, (uint64_t)valid);
        if (fd >= 0) s->fs.close(s->fs.ctx, fd);
        if (r < 0) {
            serverLog(s, LL_WARNING, "Error truncating the AOF file %s: %s",
                      name, aofStrerror(-r));
        } else {
            serverLog(s, LL_WARNING, "AOF %s loaded anyway because "
                      "aof-load-truncated is enabled", name);
            return AOF_TRUNCATED;
        }
    }
    serverLog(s, LL_WARNING, "Unexpected end of file reading the append only "
              "file %s. You can: 1) Make a backup of your AOF file, then use "
              "./redis-check-aof --fix <filename.manifest>. 2) Alternatively "
              "you can set the 'aof-load-truncated' configuration option to "
              "yes and restart the server.", name);
    return AOF_FAILED;
}

/* Replays the commands of a file from r->pos. */
static int _replay(redisServer *s, client *fake, const char *name,
                   const char *path, aofReader *r) {
    long long valid = (long long)r->pos, before_multi = 0, cmds = 0;
    for (;;) {
        int argc, was_multi;
        robj **argv;
        int st = _readCommand(s, r, &argc, &argv);
        if (st == READ_FMT) {
            serverLog(s, LL_WARNING, "Bad file format reading the append "
                      "only file %s: make a backup of your AOF file, then "
                      "use ./redis-check-aof --fix <filename.manifest>",
                      name);
            return AOF_FAILED;
        }
        if (st == READ_EOF) return _truncated(s, name, path, valid);
        if (st == READ_OOM) {
            serverLog(s, LL_WARNING, "Out of memory reading the append only "
                      "file %s", name);
            return AOF_FAILED;
        }
        if (argc == 0) break;
        long long before = valid;
        if (_runLoaded(fake, argc, argv, name, &was_multi) != C_OK)
            return AOF_FAILED;
        debugKeyLoadDelay(s);
        if (was_multi) before_multi = before;
        if (s->cfg.aof_load_truncated) valid = (long long)r->pos;
        cmds++;
    }
    TRACE(s->denv.trace, GK_TR_AOF, (uint16_t)s->node, GK_AOF_LOADED, 0,
          (uint32_t)cmds, r->pos);
    if (fake->flags & CLIENT_MULTI) {
        serverLog(s, LL_WARNING, "Revert incomplete MULTI/EXEC transaction "
                  "in AOF file %s", name);
        return _truncated(s, name, path, before_multi);
    }
    return AOF_OK;
}

/* loadSingleAppendOnlyFile. */
static int _loadSingle(redisServer *s, const char *name) {
    sds path = aofPath(s, name), data = NULL;
    int r = s->fs.readFile(s->fs.ctx, path, s->mem, &data), ret;
    if (r < 0) {
        serverLog(s, LL_WARNING, r == -FS_ENOENT ? "The append log file %s "
                  "doesn't exist: %s" : "Fatal error: can't open the append "
                  "log file %s for reading: %s", name, aofStrerror(-r));
        sdsfree(s->mem, path);
        return r == -FS_ENOENT ? AOF_NOT_EXIST : AOF_OPEN_ERR;
    }
    if (sdslen(data) == 0) ret = AOF_EMPTY;
    else {
        int old_state = s->aof.state;
        s->aof.state = AOF_OFF;
        client *fake = createDetachedClient(s, CLIENT_FAKE |
                                            CLIENT_DENY_BLOCKING, 1);
        aofReader rd = { data, sdslen(data), 0 };
        ret = AOF_FAILED;
        if (sdslen(data) < 5 || memcmp(data, "REDIS", 5) ||
            _loadRdbPart(s, fake, name, &rd) == C_OK)
            ret = _replay(s, fake, name, path, &rd);
        if (ret == AOF_OK && (fake->flags & CLIENT_MULTI)) ret = AOF_FAILED;
        freeDetachedClient(fake);
        s->aof.state = old_state;
    }
    TRACE(s->denv.trace, GK_TR_AOF, (uint16_t)s->node,
          ret == AOF_TRUNCATED ? GK_AOF_TRUNCATED : GK_AOF_LOADED, 0, 0,
          sdslen(data));
    sdsfree(s->mem, data);
    sdsfree(s->mem, path);
    return ret;
}

/* ---- All the files. ---- */

/* Virtual seconds since start, for the log. */
static double _secondsSince(redisServer *s, uint64_t start) {
    return (double)(serverNow(s) - start) / 1e9;
}

/* Loads one file of the manifest; updates *ret as loadAppendOnlyFiles
 * does. Returns 0 to go on, -1 to stop. */
static int _loadOne(redisServer *s, const char *name, const char *kind,
                    int last, int *ret) {
    uint64_t start = serverNow(s);
    *ret = _loadSingle(s, name);
    if (*ret == AOF_OK || (*ret == AOF_TRUNCATED && last))
        serverLog(s, LL_NOTICE, "DB loaded from %s file %s: %.3f seconds",
                  kind, name, _secondsSince(s, start));
    if (*ret == AOF_EMPTY && kind[0] == 'i') *ret = AOF_OK;
    if (*ret == AOF_TRUNCATED && !last) {
        *ret = AOF_FAILED;
        serverLog(s, LL_WARNING, "Fatal error: the truncated file is not "
                  "the last file");
    }
    return *ret == AOF_OPEN_ERR || *ret == AOF_FAILED ? -1 : 0;
}

/* The sizes of the base and incr files (getBaseAndIncrAppendOnlyFiles
 * Size); -1 if one is missing. */
static long long _totalSize(redisServer *s, aofManifest *am,
                            long long *base_size) {
    long long total = 0;
    *base_size = 0;
    for (int i = am->base ? -1 : 0; i < am->nincr; i++) {
        const char *name = i < 0 ? am->base->file_name
                                 : am->incr[i].file_name;
        sds path = aofPath(s, name);
        uint64_t cpu0 = s->denv.cpu_ns;
        long long sz = s->fs.size(s->fs.ctx, path);
        latencyAddSampleIfNeeded(s, "aof-fstat", latencyMsSince(s, cpu0));
        sdsfree(s->mem, path);
        if (sz < 0) {
            serverLog(s, LL_WARNING, "Unable to obtain the AOF file %s "
                      "length. stat: No such file or directory", name);
            return -1;
        }
        if (i < 0) *base_size = sz;
        total += sz;
    }
    return total;
}

/* loadAppendOnlyFiles: the base, then each incr file, in order. */
static int _loadFiles(redisServer *s) {
    aofManifest *am = s->aof.manifest;
    long long base_size;
    int ret = AOF_OK, num = 0, total_num = (am->base ? 1 : 0) + am->nincr;
    if (total_num == 0) return AOF_NOT_EXIST;
    long long total = _totalSize(s, am, &base_size);
    if (total < 0) return AOF_FAILED;
    if (total == 0) return AOF_EMPTY;
    s->loading = 1;
    if (am->base &&
        _loadOne(s, am->base->file_name, "base", ++num == total_num, &ret))
        goto done;
    for (int i = 0; i < am->nincr; i++)
        if (_loadOne(s, am->incr[i].file_name, "incr", ++num == total_num,
                     &ret)) goto done;
    s->aof.current_size = total;
    s->aof.rewrite_base_size = base_size;
    s->aof.fsync_offset = total;
done:
    s->loading = 0;
    return ret;
}

/* aofOpenIfNeededOnServerStart: with appendonly yes, make sure there is a
 * base file (an empty dataset gets one), open the last incr file for
 * appending (or create one) and persist the manifest. Any failure ends
 * the process, as in Redis. */
static void _openOnStart(redisServer *s) {
    aofState *a = &s->aof;
    aofManifest *am = a->manifest;
    s->fs.mkdir(s->fs.ctx, s->cfg.appenddirname);
    if (!am->base && am->nincr == 0) {
        sds base = aofNewBaseName(s, am), path = aofPath(s, base);
        int r = aofRewriteSync(s, path);
        sdsfree(s->mem, path);
        if (r != C_OK) { sdsfree(s->mem, base); s->fs.exit(s->fs.ctx); return; }
        serverLog(s, LL_NOTICE, "Creating AOF base file %s on server start",
                  base);
        sdsfree(s->mem, base);
    }
    int existed = am->nincr > 0;
    const char *name = aofLastIncrName(s, am);
    sds path = aofPath(s, name);
    a->fd = s->fs.open(s->fs.ctx, path, FS_O_WRONLY | FS_O_APPEND |
                                        FS_O_CREAT);
    if (a->fd < 0) {
        serverLog(s, LL_WARNING, "Can't open the append-only file %s: %s",
                  name, aofStrerror(-a->fd));
        sdsfree(s->mem, path);
        s->fs.exit(s->fs.ctx);
        return;
    }
    if (persistAofManifest(s, am) != C_OK) s->fs.exit(s->fs.ctx);
    uint64_t cpu0 = s->denv.cpu_ns;
    long long sz = s->fs.size(s->fs.ctx, path);
    latencyAddSampleIfNeeded(s, "aof-fstat", latencyMsSince(s, cpu0));
    a->last_incr_size = sz > 0 ? sz : 0;
    sdsfree(s->mem, path);
    serverLog(s, LL_NOTICE, existed ? "Opening AOF incr file %s on server "
              "start" : "Creating AOF incr file %s on server start", name);
}

/* Whether the process is still running (it may have exited). */
static int _alive(redisServer *s) {
    return s->fs.alive(s->fs.ctx, FS_POINT_CALL);
}

/* What main() does with the AOF before serving: load the manifest, load
 * the data (appendonly yes), open the AOF, delete history files. */
void aofLoadOnStartup(redisServer *s) {
    s->aof.state = s->cfg.appendonly ? AOF_ON : AOF_OFF;
    serverUpdateTime(s);
    _loadManifestFromDisk(s);
    if (!_alive(s)) return;
    if (s->aof.state == AOF_ON) {
        uint64_t start = serverNow(s);
        int ret = _loadFiles(s);
        if (ret == AOF_FAILED || ret == AOF_OPEN_ERR) {
            s->fs.exit(s->fs.ctx);
            return;
        }
        if (ret != AOF_NOT_EXIST)
            serverLog(s, LL_NOTICE, "DB loaded from append only file: %.3f "
                      "seconds", _secondsSince(s, start));
        _openOnStart(s);
        if (!_alive(s)) return;
    }
    aofDelHistoryFiles(s);
}

/* DEBUG LOADAOF's reload: the manifest read again from disk, history
 * files deleted, then every file loaded as at startup, into a dataset the
 * caller has emptied. Returns C_OK if the files loaded (or were empty);
 * otherwise the process has been ended, as Redis exits there, and C_ERR. */
int aofReloadFromDisk(redisServer *s) {
    _loadManifestFromDisk(s);
    if (!_alive(s)) return C_ERR;
    aofDelHistoryFiles(s);
    int ret = _loadFiles(s);
    if (ret == AOF_OK || ret == AOF_EMPTY) return C_OK;
    s->fs.exit(s->fs.ctx);
    return C_ERR;
}
