/* acl_table.c -- what ACL needs to know of each command: its categories
 * and where its keys are, with what it does to each.
 *
 * The facts are Redis 7.0.15's, one row per command name, sorted by
 * name: the categories as ACL CAT lists them (those a command declares
 * and those its flags imply), and its key specs in a compact form. The
 * engine's command table says how to run a command; this one says what
 * ACL checks of it. A command missing here (a row not yet written) gets
 * the categories its flags imply and no keys. ACL reads this table only
 * through aclTableCategories, aclTableHasKeys and aclTableGetKeys, so a
 * fuller description of the commands (key specs with all their flags)
 * can take its place behind those three.
 *
 * A key spec is ACCESS:BEGIN:FIND.
 *   ACCESS  R when the key's value is read (Redis's ACCESS flag), W when
 *           it is changed (INSERT, DELETE, UPDATE), both, or '-' for
 *           neither (EXISTS, TYPE: any key pattern allows them). A
 *           following '*' marks flags that depend on the arguments (SET
 *           with GET reads its key): then the command's finder is used;
 *           a '+', a spec that may miss keys (Redis's INCOMPLETE).
 *   BEGIN   N: the search starts at argument N; WORD@N: after the
 *           argument WORD, looked for from argument N on (from the end,
 *           backwards, when N < 0); '?': unknown.
 *   FIND    rL,S,M: a range of keys, the last L after the first (or
 *           counted from the end when L < 0; with M > 0, 1/M of what is
 *           left), every S-th; nI,F,S: the number of keys is argument I
 *           (counted from BEGIN), the first key F after BEGIN, every
 *           S-th; '?': unknown.
 * As in Redis, the specs are used when they can be (no '*', and every
 * spec could be followed on this command line); otherwise the command's
 * finder (the last field) looks for the keys itself. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "acl.h"

/* The finders, Redis's getkeys procs. */
enum {
    AK_NONE = 0,
    AK_SET,             /* R and W if GET is given, else W */
    AK_BITFIELD,        /* R only if every operation is a GET */
    AK_SORT,            /* the key (R), and the last STORE's (W) */
    AK_SORT_RO,         /* the key (R) */
    AK_GEORADIUS,       /* the key, and the last STORE(DIST)'s */
    AK_XREAD,           /* the keys after STREAMS, half of what follows */
    AK_NUMKEYS_AT1,     /* CMD numkeys key ... */
    AK_NUMKEYS_AT2,     /* CMD arg numkeys key ... */
    AK_STORE_NUMKEYS,   /* CMD destkey numkeys key ... */
};

typedef struct aclCommandRow {
    const char *name;           /* "get", "config|get" */
    const char *categories;     /* names, separated by spaces */
    const char *keys;           /* key specs separated by spaces, or NULL */
    int finder;                 /* AK_* */
} aclCommandRow;

static const aclCommandRow aclCommandRows[] = {
    { "acl", "slow" },
    { "acl|cat", "slow" },
    { "acl|deluser", "admin slow dangerous" },
    { "acl|dryrun", "admin slow dangerous" },
    { "acl|genpass", "slow" },
    { "acl|getuser", "admin slow dangerous" },
    { "acl|help", "slow" },
    { "acl|list", "admin slow dangerous" },
    { "acl|load", "admin slow dangerous" },
    { "acl|log", "admin slow dangerous" },
    { "acl|save", "admin slow dangerous" },
    { "acl|setuser", "admin slow dangerous" },
    { "acl|users", "admin slow dangerous" },
    { "acl|whoami", "slow" },
    { "append", "write string fast", "W:1:r0,1,0" },
    { "auth", "fast connection" },
    { "bgrewriteaof", "admin slow dangerous" },
    { "bitcount", "read bitmap slow", "R:1:r0,1,0" },
    { "bitfield", "write bitmap slow", "RW*:1:r0,1,0", AK_BITFIELD },
    { "bitfield_ro", "read bitmap fast", "R:1:r0,1,0" },
    { "bitop", "write bitmap slow", "W:2:r0,1,0 R:3:r-1,1,0" },
    { "bitpos", "read bitmap slow", "R:1:r0,1,0" },
    { "blmove", "write list slow blocking", "RW:1:r0,1,0 W:2:r0,1,0" },
    { "blmpop", "write list slow blocking", "RW:2:n0,1,1", AK_NUMKEYS_AT2 },
    { "blpop", "write list slow blocking", "RW:1:r-2,1,0" },
    { "brpop", "write list slow blocking", "RW:1:r-2,1,0" },
    { "brpoplpush", "write list slow blocking", "RW:1:r0,1,0 W:2:r0,1,0" },
    { "bzmpop", "write sortedset slow blocking",
      "RW:2:n0,1,1", AK_NUMKEYS_AT2 },
    { "bzpopmax", "write sortedset fast blocking", "RW:1:r-2,1,0" },
    { "bzpopmin", "write sortedset fast blocking", "RW:1:r-2,1,0" },
    { "client", "slow" },
    { "client|getname", "slow connection" },
    { "client|getredir", "slow connection" },
    { "client|help", "slow connection" },
    { "client|id", "slow connection" },
    { "client|info", "slow connection" },
    { "client|kill", "admin slow dangerous connection" },
    { "client|list", "admin slow dangerous connection" },
    { "client|no-evict", "admin slow dangerous connection" },
    { "client|pause", "admin slow dangerous connection" },
    { "client|reply", "slow connection" },
    { "client|setname", "slow connection" },
    { "client|trackinginfo", "slow connection" },
    { "client|unblock", "admin slow dangerous connection" },
    { "client|unpause", "admin slow dangerous connection" },
    { "command", "slow connection" },
    { "command|count", "slow connection" },
    { "config", "slow" },
    { "config|get", "admin slow dangerous" },
    { "config|help", "slow" },
    { "config|resetstat", "admin slow dangerous" },
    { "config|rewrite", "admin slow dangerous" },
    { "config|set", "admin slow dangerous" },
    { "copy", "keyspace write slow", "R:1:r0,1,0 W:2:r0,1,0" },
    { "dbsize", "keyspace read fast" },
    { "debug", "admin slow dangerous" },
    { "decr", "write string fast", "RW:1:r0,1,0" },
    { "decrby", "write string fast", "RW:1:r0,1,0" },
    { "del", "keyspace write slow", "W:1:r-1,1,0" },
    { "discard", "fast transaction" },
    { "dump", "keyspace read slow", "R:1:r0,1,0" },
    { "echo", "fast connection" },
    { "eval", "slow scripting", "RW:2:n0,1,1", AK_NUMKEYS_AT2 },
    { "eval_ro", "slow scripting", "R:2:n0,1,1", AK_NUMKEYS_AT2 },
    { "evalsha", "slow scripting", "RW:2:n0,1,1", AK_NUMKEYS_AT2 },
    { "evalsha_ro", "slow scripting", "R:2:n0,1,1", AK_NUMKEYS_AT2 },
    { "exec", "slow transaction" },
    { "exists", "keyspace read fast", "-:1:r-1,1,0" },
    { "expire", "keyspace write fast", "W:1:r0,1,0" },
    { "expireat", "keyspace write fast", "W:1:r0,1,0" },
    { "expiretime", "keyspace read fast", "R:1:r0,1,0" },
    { "fcall", "slow scripting", "RW:2:n0,1,1", AK_NUMKEYS_AT2 },
    { "fcall_ro", "slow scripting", "R:2:n0,1,1", AK_NUMKEYS_AT2 },
    { "flushall", "keyspace write slow dangerous" },
    { "flushdb", "keyspace write slow dangerous" },
    { "function", "slow" },
    { "function|delete", "write slow scripting" },
    { "function|dump", "slow scripting" },
    { "function|flush", "write slow scripting" },
    { "function|help", "slow scripting" },
    { "function|kill", "slow scripting" },
    { "function|list", "slow scripting" },
    { "function|load", "write slow scripting" },
    { "function|restore", "write slow scripting" },
    { "function|stats", "slow scripting" },
    { "geoadd", "write geo slow", "W:1:r0,1,0" },
    { "geodist", "read geo slow", "R:1:r0,1,0" },
    { "geohash", "read geo slow", "R:1:r0,1,0" },
    { "geopos", "read geo slow", "R:1:r0,1,0" },
    { "georadius", "write geo slow",
      "R:1:r0,1,0 W:STORE@6:r0,1,0 W:STOREDIST@6:r0,1,0", AK_GEORADIUS },
    { "georadius_ro", "read geo slow", "R:1:r0,1,0" },
    { "georadiusbymember", "write geo slow",
      "R:1:r0,1,0 W:STORE@5:r0,1,0 W:STOREDIST@5:r0,1,0", AK_GEORADIUS },
    { "georadiusbymember_ro", "read geo slow", "R:1:r0,1,0" },
    { "geosearch", "read geo slow", "R:1:r0,1,0" },
    { "geosearchstore", "write geo slow", "W:1:r0,1,0 R:2:r0,1,0" },
    { "get", "read string fast", "R:1:r0,1,0" },
    { "getbit", "read bitmap fast", "R:1:r0,1,0" },
    { "getdel", "write string fast", "RW:1:r0,1,0" },
    { "getex", "write string fast", "RW:1:r0,1,0" },
    { "getrange", "read string slow", "R:1:r0,1,0" },
    { "getset", "write string fast", "RW:1:r0,1,0" },
    { "hdel", "write hash fast", "W:1:r0,1,0" },
    { "hello", "fast connection" },
    { "hexists", "read hash fast", "-:1:r0,1,0" },
    { "hget", "read hash fast", "R:1:r0,1,0" },
    { "hgetall", "read hash slow", "R:1:r0,1,0" },
    { "hincrby", "write hash fast", "RW:1:r0,1,0" },
    { "hincrbyfloat", "write hash fast", "RW:1:r0,1,0" },
    { "hkeys", "read hash slow", "R:1:r0,1,0" },
    { "hlen", "read hash fast", "-:1:r0,1,0" },
    { "hmget", "read hash fast", "R:1:r0,1,0" },
    { "hmset", "write hash fast", "W:1:r0,1,0" },
    { "hrandfield", "read hash slow", "R:1:r0,1,0" },
    { "hscan", "read hash slow", "R:1:r0,1,0" },
    { "hset", "write hash fast", "W:1:r0,1,0" },
    { "hsetnx", "write hash fast", "W:1:r0,1,0" },
    { "hstrlen", "read hash fast", "-:1:r0,1,0" },
    { "hvals", "read hash slow", "R:1:r0,1,0" },
    { "incr", "write string fast", "RW:1:r0,1,0" },
    { "incrby", "write string fast", "RW:1:r0,1,0" },
    { "incrbyfloat", "write string fast", "RW:1:r0,1,0" },
    { "info", "slow dangerous" },
    { "keys", "keyspace read slow dangerous" },
    { "lastsave", "admin fast dangerous" },
    { "latency", "slow" },
    { "latency|doctor", "admin slow dangerous" },
    { "latency|graph", "admin slow dangerous" },
    { "latency|help", "slow" },
    { "latency|histogram", "admin slow dangerous" },
    { "latency|history", "admin slow dangerous" },
    { "latency|latest", "admin slow dangerous" },
    { "latency|reset", "admin slow dangerous" },
    { "lcs", "read string slow", "R:1:r1,1,0" },
    { "lindex", "read list slow", "R:1:r0,1,0" },
    { "linsert", "write list slow", "W:1:r0,1,0" },
    { "llen", "read list fast", "-:1:r0,1,0" },
    { "lmove", "write list slow", "RW:1:r0,1,0 W:2:r0,1,0" },
    { "lmpop", "write list slow", "RW:1:n0,1,1", AK_NUMKEYS_AT1 },
    { "lpop", "write list fast", "RW:1:r0,1,0" },
    { "lpos", "read list slow", "R:1:r0,1,0" },
    { "lpush", "write list fast", "W:1:r0,1,0" },
    { "lpushx", "write list fast", "W:1:r0,1,0" },
    { "lrange", "read list slow", "R:1:r0,1,0" },
    { "lrem", "write list slow", "W:1:r0,1,0" },
    { "lset", "write list slow", "W:1:r0,1,0" },
    { "ltrim", "write list slow", "W:1:r0,1,0" },
    { "memory", "slow" },
    { "memory|help", "slow" },
    { "memory|usage", "read slow", "-:2:r0,1,0" },
    { "mget", "read string fast", "R:1:r-1,1,0" },
    { "monitor", "admin slow dangerous" },
    { "move", "keyspace write fast", "RW:1:r0,1,0" },
    { "mset", "write string slow", "W:1:r-1,2,0" },
    { "msetnx", "write string slow", "W:1:r-1,2,0" },
    { "multi", "fast transaction" },
    { "object", "slow" },
    { "object|encoding", "keyspace read slow", "-:2:r0,1,0" },
    { "object|freq", "keyspace read slow", "-:2:r0,1,0" },
    { "object|help", "keyspace slow" },
    { "object|idletime", "keyspace read slow", "-:2:r0,1,0" },
    { "object|refcount", "keyspace read slow", "-:2:r0,1,0" },
    { "persist", "keyspace write fast", "W:1:r0,1,0" },
    { "pexpire", "keyspace write fast", "W:1:r0,1,0" },
    { "pexpireat", "keyspace write fast", "W:1:r0,1,0" },
    { "pexpiretime", "keyspace read fast", "R:1:r0,1,0" },
    { "pfadd", "write hyperloglog fast", "W:1:r0,1,0" },
    { "pfcount", "read hyperloglog slow", "R:1:r-1,1,0" },
    { "pfdebug", "write hyperloglog admin slow dangerous", "R:2:r0,1,0" },
    { "pfmerge", "write hyperloglog slow", "RW:1:r0,1,0 R:2:r-1,1,0" },
    { "pfselftest", "hyperloglog admin slow dangerous" },
    { "ping", "fast connection" },
    { "psetex", "write string slow", "W:1:r0,1,0" },
    { "psubscribe", "pubsub slow" },
    { "psync", "admin slow dangerous" },
    { "pttl", "keyspace read fast", "R:1:r0,1,0" },
    { "publish", "pubsub fast" },
    { "pubsub", "slow" },
    { "pubsub|channels", "pubsub slow" },
    { "pubsub|help", "slow" },
    { "pubsub|numpat", "pubsub slow" },
    { "pubsub|numsub", "pubsub slow" },
    { "pubsub|shardchannels", "pubsub slow" },
    { "pubsub|shardnumsub", "pubsub slow" },
    { "punsubscribe", "pubsub slow" },
    { "quit", "fast connection" },
    { "randomkey", "keyspace read slow" },
    { "rename", "keyspace write slow", "RW:1:r0,1,0 W:2:r0,1,0" },
    { "renamenx", "keyspace write fast", "RW:1:r0,1,0 W:2:r0,1,0" },
    { "replconf", "admin slow dangerous" },
    { "replicaof", "admin slow dangerous" },
    { "reset", "fast connection" },
    { "restore", "keyspace write slow dangerous", "W:1:r0,1,0" },
    { "role", "admin fast dangerous" },
    { "rpop", "write list fast", "RW:1:r0,1,0" },
    { "rpoplpush", "write list slow", "RW:1:r0,1,0 W:2:r0,1,0" },
    { "rpush", "write list fast", "W:1:r0,1,0" },
    { "rpushx", "write list fast", "W:1:r0,1,0" },
    { "sadd", "write set fast", "W:1:r0,1,0" },
    { "save", "admin slow dangerous" },
    { "scan", "keyspace read slow" },
    { "scard", "read set fast", "-:1:r0,1,0" },
    { "script", "slow" },
    { "script|exists", "slow scripting" },
    { "script|flush", "slow scripting" },
    { "script|help", "slow scripting" },
    { "script|kill", "slow scripting" },
    { "script|load", "slow scripting" },
    { "sdiff", "read set slow", "R:1:r-1,1,0" },
    { "sdiffstore", "write set slow", "W:1:r0,1,0 R:2:r-1,1,0" },
    { "select", "fast connection" },
    { "set", "write string slow", "RW*:1:r0,1,0", AK_SET },
    { "setbit", "write bitmap slow", "RW:1:r0,1,0" },
    { "setex", "write string slow", "W:1:r0,1,0" },
    { "setnx", "write string fast", "W:1:r0,1,0" },
    { "setrange", "write string slow", "W:1:r0,1,0" },
    { "shutdown", "admin slow dangerous" },
    { "sinter", "read set slow", "R:1:r-1,1,0" },
    { "sintercard", "read set slow", "R:1:n0,1,1", AK_NUMKEYS_AT1 },
    { "sinterstore", "write set slow", "W:1:r0,1,0 R:2:r-1,1,0" },
    { "sismember", "read set fast", "-:1:r0,1,0" },
    { "slaveof", "admin slow dangerous" },
    { "slowlog", "slow" },
    { "slowlog|get", "admin slow dangerous" },
    { "slowlog|help", "slow" },
    { "slowlog|len", "admin slow dangerous" },
    { "slowlog|reset", "admin slow dangerous" },
    { "smembers", "read set slow", "R:1:r0,1,0" },
    { "smismember", "read set fast", "R:1:r0,1,0" },
    { "smove", "write set fast", "RW:1:r0,1,0 W:2:r0,1,0" },
    { "sort", "write set sortedset list slow dangerous",
      "R:1:r0,1,0 R:?:? W:?:?", AK_SORT },
    { "sort_ro", "read set sortedset list slow dangerous",
      "R:1:r0,1,0 R:?:?", AK_SORT_RO },
    { "spop", "write set fast", "RW:1:r0,1,0" },
    { "spublish", "pubsub fast" },
    { "srandmember", "read set slow", "R:1:r0,1,0" },
    { "srem", "write set fast", "W:1:r0,1,0" },
    { "sscan", "read set slow", "R:1:r0,1,0" },
    { "ssubscribe", "pubsub slow" },
    { "strlen", "read string fast", "-:1:r0,1,0" },
    { "subscribe", "pubsub slow" },
    { "substr", "read string slow", "R:1:r0,1,0" },
    { "sunion", "read set slow", "R:1:r-1,1,0" },
    { "sunionstore", "write set slow", "W:1:r0,1,0 R:2:r-1,1,0" },
    { "sunsubscribe", "pubsub slow" },
    { "swapdb", "keyspace write fast dangerous" },
    { "sync", "admin slow dangerous" },
    { "time", "fast" },
    { "touch", "keyspace read fast", "-:1:r-1,1,0" },
    { "ttl", "keyspace read fast", "R:1:r0,1,0" },
    { "type", "keyspace read fast", "-:1:r0,1,0" },
    { "unlink", "keyspace write fast", "W:1:r-1,1,0" },
    { "unsubscribe", "pubsub slow" },
    { "unwatch", "fast transaction" },
    { "watch", "fast transaction", "-:1:r-1,1,0" },
    { "xack", "write stream fast", "W:1:r0,1,0" },
    { "xadd", "write stream fast", "W:1:r0,1,0" },
    { "xautoclaim", "write stream fast", "W:1:r0,1,0" },
    { "xclaim", "write stream fast", "W:1:r0,1,0" },
    { "xdel", "write stream fast", "W:1:r0,1,0" },
    { "xgroup", "slow" },
    { "xgroup|create", "write stream slow", "W:2:r0,1,0" },
    { "xgroup|createconsumer", "write stream slow", "W:2:r0,1,0" },
    { "xgroup|delconsumer", "write stream slow", "W:2:r0,1,0" },
    { "xgroup|destroy", "write stream slow", "W:2:r0,1,0" },
    { "xgroup|help", "stream slow" },
    { "xgroup|setid", "write stream slow", "W:2:r0,1,0" },
    { "xinfo", "slow" },
    { "xinfo|consumers", "read stream slow", "R:2:r0,1,0" },
    { "xinfo|groups", "read stream slow", "R:2:r0,1,0" },
    { "xinfo|help", "stream slow" },
    { "xinfo|stream", "read stream slow", "R:2:r0,1,0" },
    { "xlen", "read stream fast", "-:1:r0,1,0" },
    { "xpending", "read stream slow", "R:1:r0,1,0" },
    { "xrange", "read stream slow", "R:1:r0,1,0" },
    { "xread", "read stream slow blocking", "R:STREAMS@1:r-1,1,2", AK_XREAD },
    { "xreadgroup", "write stream slow blocking",
      "R:STREAMS@4:r-1,1,2", AK_XREAD },
    { "xrevrange", "read stream slow", "R:1:r0,1,0" },
    { "xsetid", "write stream fast", "W:1:r0,1,0" },
    { "xtrim", "write stream slow", "W:1:r0,1,0" },
    { "zadd", "write sortedset fast", "W:1:r0,1,0" },
    { "zcard", "read sortedset fast", "-:1:r0,1,0" },
    { "zcount", "read sortedset fast", "R:1:r0,1,0" },
    { "zdiff", "read sortedset slow", "R:1:n0,1,1", AK_NUMKEYS_AT1 },
    { "zdiffstore", "write sortedset slow",
      "W:1:r0,1,0 R:2:n0,1,1", AK_STORE_NUMKEYS },
    { "zincrby", "write sortedset fast", "RW:1:r0,1,0" },
    { "zinter", "read sortedset slow", "R:1:n0,1,1", AK_NUMKEYS_AT1 },
    { "zintercard", "read sortedset slow", "R:1:n0,1,1", AK_NUMKEYS_AT1 },
    { "zinterstore", "write sortedset slow",
      "W:1:r0,1,0 R:2:n0,1,1", AK_STORE_NUMKEYS },
    { "zlexcount", "read sortedset fast", "R:1:r0,1,0" },
    { "zmpop", "write sortedset slow", "RW:1:n0,1,1", AK_NUMKEYS_AT1 },
    { "zmscore", "read sortedset fast", "R:1:r0,1,0" },
    { "zpopmax", "write sortedset fast", "RW:1:r0,1,0" },
    { "zpopmin", "write sortedset fast", "RW:1:r0,1,0" },
    { "zrandmember", "read sortedset slow", "R:1:r0,1,0" },
    { "zrange", "read sortedset slow", "R:1:r0,1,0" },
    { "zrangebylex", "read sortedset slow", "R:1:r0,1,0" },
    { "zrangebyscore", "read sortedset slow", "R:1:r0,1,0" },
    { "zrangestore", "write sortedset slow", "W:1:r0,1,0 R:2:r0,1,0" },
    { "zrank", "read sortedset fast", "R:1:r0,1,0" },
    { "zrem", "write sortedset fast", "W:1:r0,1,0" },
    { "zremrangebylex", "write sortedset slow", "W:1:r0,1,0" },
    { "zremrangebyrank", "write sortedset slow", "W:1:r0,1,0" },
    { "zremrangebyscore", "write sortedset slow", "W:1:r0,1,0" },
    { "zrevrange", "read sortedset slow", "R:1:r0,1,0" },
    { "zrevrangebylex", "read sortedset slow", "R:1:r0,1,0" },
    { "zrevrangebyscore", "read sortedset slow", "R:1:r0,1,0" },
    { "zrevrank", "read sortedset fast", "R:1:r0,1,0" },
    { "zscan", "read sortedset slow", "R:1:r0,1,0" },
    { "zscore", "read sortedset fast", "R:1:r0,1,0" },
    { "zunion", "read sortedset slow", "R:1:n0,1,1", AK_NUMKEYS_AT1 },
    { "zunionstore", "write sortedset slow",
      "W:1:r0,1,0 R:2:n0,1,1", AK_STORE_NUMKEYS },
};

#define ROWS ((int)(sizeof(aclCommandRows) / sizeof(aclCommandRows[0])))

static const aclCommandRow *_row(const redisCommand *cmd) {
    int lo = 0, hi = ROWS - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        int c = strcmp(cmd->fullname, aclCommandRows[mid].name);
        if (c == 0) return &aclCommandRows[mid];
        if (c < 0) hi = mid - 1;
        else lo = mid + 1;
    }
    return NULL;
}

/* Whether cmd has its row. */
int aclTableKnows(const redisCommand *cmd) {
    return _row(cmd) != NULL;
}

/* The categories of cmd, a bit per index of aclCategoryNames. */
uint32_t aclTableCategories(const redisCommand *cmd) {
    const aclCommandRow *row = _row(cmd);
    uint32_t cats = 0;
    if (!row) {
        /* What the flags imply, as Redis adds to what a command
         * declares. */
        if (cmd->flags & CMD_WRITE) cats |= 1u << aclCategoryByName("write");
        if (cmd->flags & CMD_READONLY)
            cats |= 1u << aclCategoryByName("read");
        if (cmd->flags & CMD_ADMIN)
            cats |= 1u << aclCategoryByName("admin") |
                    1u << aclCategoryByName("dangerous");
        cats |= 1u << aclCategoryByName((cmd->flags & CMD_FAST) ? "fast"
                                                                : "slow");
        return cats;
    }
    const char *p = row->categories;
    while (*p) {
        const char *sp = strchr(p, ' ');
        size_t len = sp ? (size_t)(sp - p) : strlen(p);
        char name[32];
        memcpy(name, p, len);
        name[len] = '\0';
        int j = aclCategoryByName(name);
        if (j >= 0) cats |= 1u << j;
        p += len + (sp != NULL);
    }
    return cats;
}

/* Whether cmd may have keys: ACL checks its keys only then. */
int aclTableHasKeys(const redisCommand *cmd) {
    const aclCommandRow *row = _row(cmd);
    return row && (row->keys || row->finder != AK_NONE);
}

void aclKeysInit(aclKeys *k) {
    k->refs = k->buf;
    k->n = 0;
    k->cap = ACL_KEYS_BUF;
}

void aclKeysFree(redisServer *s, aclKeys *k) {
    if (k->refs != k->buf) memFree(s->mem, k->refs);
    aclKeysInit(k);
}

static void _addKey(redisServer *s, aclKeys *k, int pos, int perm) {
    if (k->n == k->cap) {
        k->cap *= 2;
        if (k->refs == k->buf) {
            k->refs = memAlloc(s->mem, sizeof(aclKeyRef) * (size_t)k->cap);
            memcpy(k->refs, k->buf, sizeof(k->buf));
        } else {
            k->refs = memRealloc(s->mem, k->refs,
                                 sizeof(aclKeyRef) * (size_t)k->cap);
        }
    }
    k->refs[k->n].pos = pos;
    k->refs[k->n++].perm = perm;
}

static const char *_arg(robj *o, char buf[LONG_STR_SIZE]) {
    size_t len;
    return objectStrBytes(o, buf, &len);
}

/* ---- Key specs. ---- */

typedef struct keySpec {
    int perm;                   /* ACL_KEY_* */
    int variable, incomplete;
    int begin;                  /* 0 unknown, 1 index, 2 keyword */
    int pos;                    /* the index, or where the look starts */
    char keyword[16];
    int find;                   /* 0 unknown, 1 range, 2 keynum */
    int a, b, c;                /* lastkey, step, limit / idx, first, step */
} keySpec;

/* Parses the spec at *p (advancing it past the spec and its space). */
static void _parseSpec(const char **p, keySpec *ks) {
    const char *q = *p;
    memset(ks, 0, sizeof(*ks));
    for (; *q != ':'; q++) {
        if (*q == 'R') ks->perm |= ACL_KEY_READ;
        else if (*q == 'W') ks->perm |= ACL_KEY_WRITE;
        else if (*q == '*') ks->variable = 1;
        else if (*q == '+') ks->incomplete = 1;
    }
    q++;
    if (*q == '?') {
        q++;
    } else if (*q == '-' || (*q >= '0' && *q <= '9')) {
        ks->begin = 1;
        ks->pos = (int)strtol(q, (char **)&q, 10);
    } else {
        const char *at = strchr(q, '@');
        size_t len = (size_t)(at - q);
        memcpy(ks->keyword, q, len < 15 ? len : 15);
        ks->begin = 2;
        ks->pos = (int)strtol(at + 1, (char **)&q, 10);
    }
    q++;
    if (*q == 'r' || *q == 'n') {
        ks->find = *q == 'r' ? 1 : 2;
        ks->a = (int)strtol(q + 1, (char **)&q, 10);
        ks->b = (int)strtol(q + 1, (char **)&q, 10);
        ks->c = (int)strtol(q + 1, (char **)&q, 10);
    } else {
        q++;
    }
    *p = *q == ' ' ? q + 1 : q;
}

/* Where a keyword spec's keys begin: after the keyword, 0 if absent. */
static int _findKeyword(const keySpec *ks, robj **argv, int argc) {
    char buf[LONG_STR_SIZE];
    int start = ks->pos > 0 ? ks->pos : argc + ks->pos;
    int end = ks->pos > 0 ? argc - 1 : 1;
    for (int i = start; i != end; i = start <= end ? i + 1 : i - 1) {
        if (i >= argc || i < 1) break;
        if (!strcasecmp(_arg(argv[i], buf), ks->keyword)) return i + 1;
    }
    return 0;
}

/* The keys of the specs (Redis's getKeysUsingKeySpecs): their count, or
 * -1 if a spec cannot be followed on this line (then the finder looks
 * for them). A spec whose keyword is absent has no keys. */
static int _keysFromSpecs(redisServer *s, const redisCommand *cmd,
                          const char *specs, robj **argv, int argc,
                          aclKeys *out) {
    char buf[LONG_STR_SIZE];
    const char *p = specs;
    while (*p) {
        keySpec ks;
        _parseSpec(&p, &ks);
        int first = 0, last, step;
        if (ks.begin == 1) first = ks.pos;
        else if (ks.begin == 2) first = _findKeyword(&ks, argv, argc);
        else goto invalid;
        if (!first) continue;
        if (ks.find == 1) {
            step = ks.b;
            if (ks.a >= 0) last = first + ks.a;
            else if (!ks.c) last = argc + ks.a;
            else last = first + ((argc - first) / ks.c + ks.a);
        } else if (ks.find == 2) {
            step = ks.c;
            long long numkeys;
            if (ks.a >= argc || first + ks.a >= argc) goto invalid;
            const char *n = _arg(argv[first + ks.a], buf);
            if (!string2ll(n, strlen(n), &numkeys) || numkeys < 0)
                goto invalid;
            first += ks.b;
            last = first + (int)numkeys - 1;
        } else {
            goto invalid;
        }
        if (last >= argc || last < first || first >= argc) goto invalid;
        for (int i = first; i <= last; i += step) {
            if (i >= argc || i < first) continue;
            _addKey(s, out, i, ks.perm);
        }
        if (ks.incomplete) goto invalid;
    }
    (void)cmd;
    return out->n;
invalid:
    out->n = 0;
    return -1;
}

/* ---- Finders. ---- */

static void _findSet(redisServer *s, robj **argv, int argc, aclKeys *out) {
    char buf[LONG_STR_SIZE];
    int get = 0;
    for (int i = 3; i < argc && !get; i++)
        get = !strcasecmp(_arg(argv[i], buf), "get");
    _addKey(s, out, 1, get ? ACL_KEY_READ | ACL_KEY_WRITE : ACL_KEY_WRITE);
}

/* BITFIELD is read-only while it has only GETs, up to a syntax error
 * (taken as a write, to be safe). */
static void _findBitfield(redisServer *s, robj **argv, int argc,
                          aclKeys *out) {
    char buf[LONG_STR_SIZE];
    int readonly = 1;
    for (int i = 2; i < argc; i++) {
        int rem = argc - i - 1;
        const char *a = _arg(argv[i], buf);
        if (!strcasecmp(a, "get") && rem >= 2) {
            i += 2;
        } else if ((!strcasecmp(a, "set") || !strcasecmp(a, "incrby")) &&
                   rem >= 3) {
            readonly = 0;
            break;
        } else if (!strcasecmp(a, "overflow") && rem >= 1) {
            i += 1;
        } else {
            readonly = 0;
            break;
        }
    }
    _addKey(s, out, 1, readonly ? ACL_KEY_READ
                                : ACL_KEY_READ | ACL_KEY_WRITE);
}

/* SORT key [BY p] [LIMIT o c] [GET p ...] [ASC|DESC] [ALPHA] [STORE d]:
 * the options are skipped with their arguments; the last STORE wins. */
static void _findSort(redisServer *s, robj **argv, int argc, aclKeys *out) {
    char buf[LONG_STR_SIZE];
    int store = 0;
    _addKey(s, out, 1, ACL_KEY_READ);
    for (int i = 2; i < argc; i++) {
        const char *a = _arg(argv[i], buf);
        if (!strcasecmp(a, "limit")) i += 2;
        else if (!strcasecmp(a, "get") || !strcasecmp(a, "by")) i += 1;
        else if (!strcasecmp(a, "store") && i + 1 < argc) store = i + 1;
    }
    if (store) _addKey(s, out, store, ACL_KEY_WRITE);
}

static void _findGeoradius(redisServer *s, robj **argv, int argc,
                           aclKeys *out) {
    char buf[LONG_STR_SIZE];
    int stored = 0;
    for (int i = 5; i < argc; i++) {
        const char *a = _arg(argv[i], buf);
        if ((!strcasecmp(a, "store") || !strcasecmp(a, "storedist")) &&
            i + 1 < argc) {
            stored = i + 1;
            i++;
        }
    }
    _addKey(s, out, 1, 0);
    if (stored) _addKey(s, out, stored, 0);
}

static void _findXread(redisServer *s, robj **argv, int argc,
                       aclKeys *out) {
    char buf[LONG_STR_SIZE];
    int streams = -1;
    for (int i = 1; i < argc; i++) {
        const char *a = _arg(argv[i], buf);
        if (!strcasecmp(a, "block") || !strcasecmp(a, "count")) i++;
        else if (!strcasecmp(a, "group")) i += 2;
        else if (!strcasecmp(a, "noack")) continue;
        else if (!strcasecmp(a, "streams")) { streams = i; break; }
        else break;
    }
    int num = streams == -1 ? 0 : argc - streams - 1;
    if (streams == -1 || num == 0 || num % 2) return;
    for (int i = streams + 1; i < argc - num / 2; i++) _addKey(s, out, i, 0);
}

/* CMD [destkey] numkeys key ...: nothing unless numkeys (read as atoi
 * reads it) is between 1 and the keys there is room for. */
static void _findNumkeys(redisServer *s, robj **argv, int argc, int store,
                         int count_at, int first, aclKeys *out) {
    char buf[LONG_STR_SIZE];
    if (count_at >= argc) return;
    int num = atoi(_arg(argv[count_at], buf));
    if (num < 1 || num > argc - first) return;
    for (int i = 0; i < num; i++) _addKey(s, out, first + i, 0);
    if (store) _addKey(s, out, store, 0);
}

static void _runFinder(redisServer *s, int finder, robj **argv, int argc,
                       aclKeys *out) {
    out->n = 0;
    switch (finder) {
    case AK_SET: _findSet(s, argv, argc, out); break;
    case AK_BITFIELD: _findBitfield(s, argv, argc, out); break;
    case AK_SORT: _findSort(s, argv, argc, out); break;
    case AK_SORT_RO: _addKey(s, out, 1, ACL_KEY_READ); break;
    case AK_GEORADIUS: _findGeoradius(s, argv, argc, out); break;
    case AK_XREAD: _findXread(s, argv, argc, out); break;
    case AK_NUMKEYS_AT1: _findNumkeys(s, argv, argc, 0, 1, 2, out); break;
    case AK_NUMKEYS_AT2: _findNumkeys(s, argv, argc, 0, 2, 3, out); break;
    case AK_STORE_NUMKEYS: _findNumkeys(s, argv, argc, 1, 2, 3, out); break;
    default: break;
    }
}

/* The keys of a command line, each with what a key pattern must grant
 * for it, into out (initialized by the caller); their count. This is
 * the one place ACL learns where a command's keys are. A line too short
 * for its command (redis.acl_check_cmd checks no arity) loses the keys
 * it does not have. */
int aclTableGetKeys(redisServer *s, const redisCommand *cmd, robj **argv,
                    int argc, aclKeys *out) {
    const aclCommandRow *row = _row(cmd);
    if (!row) return 0;
    if (!row->keys || strchr(row->keys, '*') ||
        _keysFromSpecs(s, cmd, row->keys, argv, argc, out) < 0)
        _runFinder(s, row->finder, argv, argc, out);
    int n = 0;
    for (int j = 0; j < out->n; j++)
        if (out->refs[j].pos < argc) out->refs[n++] = out->refs[j];
    out->n = n;
    return n;
}
