/* commands.c -- the command table: name, handler, arity and flags, as
 * Redis 7.0 declares them. Arity > 0 is an exact argument count (the
 * command name included); arity < 0 is a minimum. */
#include "server.h"

#define W CMD_WRITE
#define R CMD_READONLY
#define M CMD_DENYOOM
#define F CMD_FAST
#define A CMD_ADMIN
#define END { 0 }

static redisCommand configSubcommands[] = {
    { "get", configGetCommand, -3, CMD_LOADING | CMD_STALE, 0, 0,
      "config|get" },
    { "set", configSetCommand, -4, A | CMD_LOADING | CMD_STALE, 0, 0,
      "config|set" },
    { "resetstat", configResetStatCommand, 2, A, 0, 0, "config|resetstat" },
    { "help", configHelpCommand, 2, CMD_LOADING | CMD_STALE, 0, 0,
      "config|help" },
    END
};

static redisCommand objectSubcommands[] = {
    { "encoding", objectEncodingCommand, 3, R, 0, 0, "object|encoding" },
    { "refcount", objectRefcountCommand, 3, R, 0, 0, "object|refcount" },
    { "help", objectHelpCommand, 2, CMD_LOADING | CMD_STALE, 0, 0,
      "object|help" },
    END
};

static redisCommand commandSubcommands[] = {
    { "count", commandCountCommand, 2, CMD_LOADING | CMD_STALE, 0, 0,
      "command|count" },
    END
};

static redisCommand clientSubcommands[] = {
    { "id", clientIdCommand, 2, CMD_LOADING | CMD_STALE, 0, 0, "client|id" },
    { "setname", clientSetNameCommand, 3, CMD_LOADING | CMD_STALE, 0, 0,
      "client|setname" },
    { "getname", clientGetNameCommand, 2, CMD_LOADING | CMD_STALE, 0, 0,
      "client|getname" },
    { "info", clientInfoCommand, 2, CMD_LOADING | CMD_STALE, 0, 0,
      "client|info" },
    { "list", clientListCommand, -2, A | CMD_LOADING | CMD_STALE, 0, 0,
      "client|list" },
    END
};

redisCommand redisCommandTable[] = {
    { "ping", pingCommand, -1, F, 0, 0, 0 },
    { "echo", echoCommand, 2, F, 0, 0, 0 },
    { "quit", quitCommand, -1, F | CMD_LOADING | CMD_STALE, 0, 0, 0 },
    { "select", selectCommand, 2, F | CMD_LOADING | CMD_STALE, 0, 0, 0 },
    { "dbsize", dbsizeCommand, 1, R | F, 0, 0, 0 },
    { "flushdb", flushdbCommand, -1, W, 0, 0, 0 },
    { "flushall", flushallCommand, -1, W, 0, 0, 0 },
    { "exists", existsCommand, -2, R | F, 0, 0, 0 },
    { "del", delCommand, -2, W, 0, 0, 0 },
    { "unlink", unlinkCommand, -2, W | F, 0, 0, 0 },
    { "type", typeCommand, 2, R | F, 0, 0, 0 },
    { "keys", keysCommand, 2, R, 0, 0, 0 },
    { "randomkey", randomkeyCommand, 1, R, 0, 0, 0 },
    { "rename", renameCommand, 3, W, 0, 0, 0 },
    { "scan", scanCommand, -2, R, 0, 0, 0 },
    { "expire", expireCommand, -3, W | F, 0, 0, 0 },
    { "pexpire", pexpireCommand, -3, W | F, 0, 0, 0 },
    { "expireat", expireatCommand, -3, W | F, 0, 0, 0 },
    { "pexpireat", pexpireatCommand, -3, W | F, 0, 0, 0 },
    { "ttl", ttlCommand, 2, R | F, 0, 0, 0 },
    { "pttl", pttlCommand, 2, R | F, 0, 0, 0 },
    { "persist", persistCommand, 2, W | F, 0, 0, 0 },
    { "set", setCommand, -3, W | M, 0, 0, 0 },
    { "get", getCommand, 2, R | F, 0, 0, 0 },
    { "getset", getsetCommand, 3, W | M | F, 0, 0, 0 },
    { "mset", msetCommand, -3, W | M, 0, 0, 0 },
    { "mget", mgetCommand, -2, R | F, 0, 0, 0 },
    { "msetnx", msetnxCommand, -3, W | M, 0, 0, 0 },
    { "setnx", setnxCommand, 3, W | M | F, 0, 0, 0 },
    { "setex", setexCommand, 4, W | M, 0, 0, 0 },
    { "psetex", psetexCommand, 4, W | M, 0, 0, 0 },
    { "incr", incrCommand, 2, W | M | F, 0, 0, 0 },
    { "incrby", incrbyCommand, 3, W | M | F, 0, 0, 0 },
    { "decr", decrCommand, 2, W | M | F, 0, 0, 0 },
    { "decrby", decrbyCommand, 3, W | M | F, 0, 0, 0 },
    { "incrbyfloat", incrbyfloatCommand, 3, W | M | F, 0, 0, 0 },
    { "append", appendCommand, 3, W | M, 0, 0, 0 },
    { "strlen", strlenCommand, 2, R | F, 0, 0, 0 },
    { "sadd", saddCommand, -3, W | M | F, 0, 0, 0 },
    { "srem", sremCommand, -3, W | F, 0, 0, 0 },
    { "sismember", sismemberCommand, 3, R | F, 0, 0, 0 },
    { "smembers", smembersCommand, 2, R, 0, 0, 0 },
    { "scard", scardCommand, 2, R | F, 0, 0, 0 },
    { "sscan", sscanCommand, -3, R, 0, 0, 0 },
    { "hset", hsetCommand, -4, W | M | F, 0, 0, 0 },
    { "hget", hgetCommand, 3, R | F, 0, 0, 0 },
    { "hdel", hdelCommand, -3, W | F, 0, 0, 0 },
    { "hgetall", hgetallCommand, 2, R, 0, 0, 0 },
    { "hlen", hlenCommand, 2, R | F, 0, 0, 0 },
    { "hexists", hexistsCommand, 3, R | F, 0, 0, 0 },
    { "hscan", hscanCommand, -3, R, 0, 0, 0 },
    { "zadd", zaddCommand, -4, W | M | F, 0, 0, 0 },
    { "zrem", zremCommand, -3, W | F, 0, 0, 0 },
    { "zscore", zscoreCommand, 3, R | F, 0, 0, 0 },
    { "zcard", zcardCommand, 2, R | F, 0, 0, 0 },
    { "zrange", zrangeCommand, -4, R, 0, 0, 0 },
    { "zscan", zscanCommand, -3, R, 0, 0, 0 },
    { "smismember", smismemberCommand, -3, R | F, 0, 0, 0 },
    { "hmset", hmsetCommand, -4, W | M | F, 0, 0, 0 },
    { "hsetnx", hsetnxCommand, 4, W | M | F, 0, 0, 0 },
    { "hincrby", hincrbyCommand, 4, W | M | F, 0, 0, 0 },
    { "hmget", hmgetCommand, -3, R | F, 0, 0, 0 },
    { "hstrlen", hstrlenCommand, 3, R | F, 0, 0, 0 },
    { "hkeys", hkeysCommand, 2, R, 0, 0, 0 },
    { "hvals", hvalsCommand, 2, R, 0, 0, 0 },
    { "zincrby", zincrbyCommand, 4, W | M | F, 0, 0, 0 },
    { "zmscore", zmscoreCommand, -3, R | F, 0, 0, 0 },
    { "zrank", zrankCommand, 3, R | F, 0, 0, 0 },
    { "zrevrank", zrevrankCommand, 3, R | F, 0, 0, 0 },
    { "zcount", zcountCommand, 4, R | F, 0, 0, 0 },
    { "zlexcount", zlexcountCommand, 4, R | F, 0, 0, 0 },
    { "zrevrange", zrevrangeCommand, -4, R, 0, 0, 0 },
    { "zrangebyscore", zrangebyscoreCommand, -4, R, 0, 0, 0 },
    { "zrevrangebyscore", zrevrangebyscoreCommand, -4, R, 0, 0, 0 },
    { "zrangebylex", zrangebylexCommand, -4, R, 0, 0, 0 },
    { "zrevrangebylex", zrevrangebylexCommand, -4, R, 0, 0, 0 },
    { "renamenx", renamenxCommand, 3, W | F, 0, 0, 0 },
    { "multi", multiCommand, 1, F | CMD_LOADING | CMD_STALE, 0, 0, 0 },
    { "exec", execCommand, 1, CMD_LOADING | CMD_STALE, 0, 0, 0 },
    { "discard", discardCommand, 1, F | CMD_LOADING | CMD_STALE, 0, 0, 0 },
    { "watch", watchCommand, -2, F | CMD_LOADING | CMD_STALE, 0, 0, 0 },
    { "unwatch", unwatchCommand, 1, F | CMD_LOADING | CMD_STALE, 0, 0, 0 },
    { "config", NULL, -2, 0, configSubcommands, 0, 0 },
    { "object", NULL, -2, 0, objectSubcommands, 0, 0 },
    { "command", commandCommand, -1, CMD_LOADING | CMD_STALE,
      commandSubcommands, 0, 0 },
    { "client", NULL, -2, 0, clientSubcommands, 0, 0 },
    { "info", infoCommand, -1, CMD_LOADING | CMD_STALE, 0, 0, 0 },
    { "debug", debugCommand, -2, A | CMD_LOADING | CMD_STALE, 0, 0, 0 },
    { "time", timeCommand, 1, F | CMD_LOADING | CMD_STALE, 0, 0, 0 },
    { "bgrewriteaof", bgrewriteaofCommand, 1, A, 0, 0, 0 },
    END
};
