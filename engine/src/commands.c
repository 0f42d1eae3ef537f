/* commands.c -- the command table: name, handler, arity and flags, as
 * Redis 7.0 declares them. Arity > 0 is an exact argument count (the
 * command name included); arity < 0 is a minimum.
 *
 * The table is const and the same for every server: each command's id
 * (its row in a server's commandstats) and full name ("config|get") are
 * fixed here, from the lists below, rather than written when a server
 * starts. A command is added by adding its line to a list. */
#include <strings.h>
#include "server.h"

#define W CMD_WRITE
#define R CMD_READONLY
#define M CMD_DENYOOM
#define F CMD_FAST
#define A CMD_ADMIN
#define NS CMD_NOSCRIPT
#define END { 0 }

/* Every top-level command, in the table's order:
 * C(name, handler, arity, flags, subcommands). */
#define REDIS_COMMANDS(C) \
    C(ping, pingCommand, -1, F, NULL) \
    C(echo, echoCommand, 2, F | CMD_LOADING | CMD_STALE, NULL) \
    C(quit, quitCommand, -1, \
      F | NS | CMD_LOADING | CMD_STALE | CMD_NO_AUTH | CMD_ALLOW_BUSY, NULL) \
    C(hello, helloCommand, -1, \
      F | NS | CMD_LOADING | CMD_STALE | CMD_NO_AUTH | CMD_ALLOW_BUSY, NULL) \
    C(select, selectCommand, 2, F | CMD_LOADING | CMD_STALE, NULL) \
    C(dbsize, dbsizeCommand, 1, R | F, NULL) \
    C(flushdb, flushdbCommand, -1, W, NULL) \
    C(flushall, flushallCommand, -1, W, NULL) \
    C(exists, existsCommand, -2, R | F, NULL) \
    C(del, delCommand, -2, W, NULL) \
    C(unlink, unlinkCommand, -2, W | F, NULL) \
    C(type, typeCommand, 2, R | F, NULL) \
    C(keys, keysCommand, 2, R, NULL) \
    C(randomkey, randomkeyCommand, 1, R | CMD_TOUCHES_ARBITRARY_KEYS, NULL) \
    C(rename, renameCommand, 3, W, NULL) \
    C(scan, scanCommand, -2, R | CMD_TOUCHES_ARBITRARY_KEYS, NULL) \
    C(expire, expireCommand, -3, W | F, NULL) \
    C(pexpire, pexpireCommand, -3, W | F, NULL) \
    C(expireat, expireatCommand, -3, W | F, NULL) \
    C(pexpireat, pexpireatCommand, -3, W | F, NULL) \
    C(ttl, ttlCommand, 2, R | F, NULL) \
    C(pttl, pttlCommand, 2, R | F, NULL) \
    C(expiretime, expiretimeCommand, 2, R | F, NULL) \
    C(pexpiretime, pexpiretimeCommand, 2, R | F, NULL) \
    C(dump, dumpCommand, 2, R, NULL) \
    C(restore, restoreCommand, -4, W | M, NULL) \
    C(migrate, migrateCommand, -6, W, NULL) \
    C(persist, persistCommand, 2, W | F, NULL) \
    C(set, setCommand, -3, W | M, NULL) \
    C(get, getCommand, 2, R | F, NULL) \
    C(getset, getsetCommand, 3, W | M | F, NULL) \
    C(mset, msetCommand, -3, W | M, NULL) \
    C(mget, mgetCommand, -2, R | F, NULL) \
    C(msetnx, msetnxCommand, -3, W | M, NULL) \
    C(setnx, setnxCommand, 3, W | M | F, NULL) \
    C(setex, setexCommand, 4, W | M, NULL) \
    C(psetex, psetexCommand, 4, W | M, NULL) \
    C(incr, incrCommand, 2, W | M | F, NULL) \
    C(incrby, incrbyCommand, 3, W | M | F, NULL) \
    C(decr, decrCommand, 2, W | M | F, NULL) \
    C(decrby, decrbyCommand, 3, W | M | F, NULL) \
    C(incrbyfloat, incrbyfloatCommand, 3, W | M | F, NULL) \
    C(append, appendCommand, 3, W | M | F, NULL) \
    C(strlen, strlenCommand, 2, R | F, NULL) \
    C(getex, getexCommand, -2, W | F, NULL) \
    C(getdel, getdelCommand, 2, W | F, NULL) \
    C(getrange, getrangeCommand, 4, R, NULL) \
    C(substr, getrangeCommand, 4, R, NULL) \
    C(setrange, setrangeCommand, 4, W | M, NULL) \
    C(lcs, lcsCommand, -3, R, NULL) \
    C(setbit, setbitCommand, 4, W | M, NULL) \
    C(getbit, getbitCommand, 3, R | F, NULL) \
    C(bitcount, bitcountCommand, -2, R, NULL) \
    C(bitpos, bitposCommand, -3, R, NULL) \
    C(bitop, bitopCommand, -4, W | M, NULL) \
    C(bitfield, bitfieldCommand, -2, W | M, NULL) \
    C(bitfield_ro, bitfieldroCommand, -2, R | F, NULL) \
    C(pfadd, pfaddCommand, -2, W | M | F, NULL) \
    C(pfcount, pfcountCommand, -2, R, NULL) \
    C(pfmerge, pfmergeCommand, -2, W | M, NULL) \
    C(pfdebug, pfdebugCommand, 3, W | M | A, NULL) \
    C(pfselftest, pfselftestCommand, 1, A, NULL) \
    C(sadd, saddCommand, -3, W | M | F, NULL) \
    C(srem, sremCommand, -3, W | F, NULL) \
    C(sismember, sismemberCommand, 3, R | F, NULL) \
    C(smembers, smembersCommand, 2, R, NULL) \
    C(scard, scardCommand, 2, R | F, NULL) \
    C(sscan, sscanCommand, -3, R, NULL) \
    C(smove, smoveCommand, 4, W | F, NULL) \
    C(spop, spopCommand, -2, W | F, NULL) \
    C(srandmember, srandmemberCommand, -2, R, NULL) \
    C(sinter, sinterCommand, -2, R, NULL) \
    C(sinterstore, sinterstoreCommand, -3, W | M, NULL) \
    C(sintercard, sintercardCommand, -3, R, NULL) \
    C(sunion, sunionCommand, -2, R, NULL) \
    C(sunionstore, sunionstoreCommand, -3, W | M, NULL) \
    C(sdiff, sdiffCommand, -2, R, NULL) \
    C(sdiffstore, sdiffstoreCommand, -3, W | M, NULL) \
    C(hset, hsetCommand, -4, W | M | F, NULL) \
    C(hget, hgetCommand, 3, R | F, NULL) \
    C(hdel, hdelCommand, -3, W | F, NULL) \
    C(hgetall, hgetallCommand, 2, R, NULL) \
    C(hlen, hlenCommand, 2, R | F, NULL) \
    C(hexists, hexistsCommand, 3, R | F, NULL) \
    C(hscan, hscanCommand, -3, R, NULL) \
    C(zadd, zaddCommand, -4, W | M | F, NULL) \
    C(zrem, zremCommand, -3, W | F, NULL) \
    C(zscore, zscoreCommand, 3, R | F, NULL) \
    C(zcard, zcardCommand, 2, R | F, NULL) \
    C(zrange, zrangeCommand, -4, R, NULL) \
    C(zscan, zscanCommand, -3, R, NULL) \
    C(smismember, smismemberCommand, -3, R | F, NULL) \
    C(hmset, hmsetCommand, -4, W | M | F, NULL) \
    C(hsetnx, hsetnxCommand, 4, W | M | F, NULL) \
    C(hincrby, hincrbyCommand, 4, W | M | F, NULL) \
    C(hmget, hmgetCommand, -3, R | F, NULL) \
    C(hstrlen, hstrlenCommand, 3, R | F, NULL) \
    C(hkeys, hkeysCommand, 2, R, NULL) \
    C(hvals, hvalsCommand, 2, R, NULL) \
    C(hincrbyfloat, hincrbyfloatCommand, 4, W | M | F, NULL) \
    C(hrandfield, hrandfieldCommand, -2, R, NULL) \
    C(memory, NULL, -2, 0, memorySubcommands) \
    C(zincrby, zincrbyCommand, 4, W | M | F, NULL) \
    C(zmscore, zmscoreCommand, -3, R | F, NULL) \
    C(zrank, zrankCommand, 3, R | F, NULL) \
    C(zrevrank, zrevrankCommand, 3, R | F, NULL) \
    C(zcount, zcountCommand, 4, R | F, NULL) \
    C(zlexcount, zlexcountCommand, 4, R | F, NULL) \
    C(zrevrange, zrevrangeCommand, -4, R, NULL) \
    C(zrangebyscore, zrangebyscoreCommand, -4, R, NULL) \
    C(zrevrangebyscore, zrevrangebyscoreCommand, -4, R, NULL) \
    C(zrangebylex, zrangebylexCommand, -4, R, NULL) \
    C(zrevrangebylex, zrevrangebylexCommand, -4, R, NULL) \
    C(zremrangebyscore, zremrangebyscoreCommand, 4, W, NULL) \
    C(zremrangebyrank, zremrangebyrankCommand, 4, W, NULL) \
    C(zremrangebylex, zremrangebylexCommand, 4, W, NULL) \
    C(zunionstore, zunionstoreCommand, -4, W | M, NULL) \
    C(zinterstore, zinterstoreCommand, -4, W | M, NULL) \
    C(zdiffstore, zdiffstoreCommand, -4, W | M, NULL) \
    C(zunion, zunionCommand, -3, R, NULL) \
    C(zinter, zinterCommand, -3, R, NULL) \
    C(zdiff, zdiffCommand, -3, R, NULL) \
    C(zintercard, zintercardCommand, -3, R, NULL) \
    C(zrangestore, zrangestoreCommand, -5, W | M, NULL) \
    C(zpopmin, zpopminCommand, -2, W | F, NULL) \
    C(zpopmax, zpopmaxCommand, -2, W | F, NULL) \
    C(zmpop, zmpopCommand, -4, W, NULL) \
    C(bzpopmin, bzpopminCommand, -3, W | F | NS, NULL) \
    C(bzpopmax, bzpopmaxCommand, -3, W | F | NS, NULL) \
    C(bzmpop, bzmpopCommand, -5, W, NULL) \
    C(zrandmember, zrandmemberCommand, -2, R, NULL) \
    C(geoadd, geoaddCommand, -5, W | M, NULL) \
    C(geodist, geodistCommand, -4, R, NULL) \
    C(geohash, geohashCommand, -2, R, NULL) \
    C(geopos, geoposCommand, -2, R, NULL) \
    C(georadius, georadiusCommand, -6, W | M, NULL) \
    C(georadiusbymember, georadiusbymemberCommand, -5, W | M, NULL) \
    C(georadius_ro, georadiusroCommand, -6, R, NULL) \
    C(georadiusbymember_ro, georadiusbymemberroCommand, -5, R, NULL) \
    C(geosearch, geosearchCommand, -7, R, NULL) \
    C(geosearchstore, geosearchstoreCommand, -8, W | M, NULL) \
    C(renamenx, renamenxCommand, 3, W | F, NULL) \
    C(copy, copyCommand, -3, W | M, NULL) \
    C(move, moveCommand, 3, W | F, NULL) \
    C(touch, touchCommand, -2, R | F, NULL) \
    C(xadd, xaddCommand, -5, W | M | F, NULL) \
    C(xrange, xrangeCommand, -4, R, NULL) \
    C(xrevrange, xrevrangeCommand, -4, R, NULL) \
    C(xlen, xlenCommand, 2, R | F, NULL) \
    C(xdel, xdelCommand, -3, W | F, NULL) \
    C(xtrim, xtrimCommand, -4, W, NULL) \
    C(xsetid, xsetidCommand, -3, W | M | F, NULL) \
    C(xread, xreadCommand, -4, R, NULL) \
    C(xreadgroup, xreadCommand, -7, W, NULL) \
    C(xack, xackCommand, -4, W | F, NULL) \
    C(xpending, xpendingCommand, -3, R, NULL) \
    C(xclaim, xclaimCommand, -6, W | F, NULL) \
    C(xautoclaim, xautoclaimCommand, -6, W | F, NULL) \
    C(xgroup, NULL, -2, 0, xgroupSubcommands) \
    C(xinfo, NULL, -2, 0, xinfoSubcommands) \
    C(lpush, lpushCommand, -3, W | M | F, NULL) \
    C(rpush, rpushCommand, -3, W | M | F, NULL) \
    C(lpushx, lpushxCommand, -3, W | M | F, NULL) \
    C(rpushx, rpushxCommand, -3, W | M | F, NULL) \
    C(linsert, linsertCommand, 5, W | M, NULL) \
    C(lpop, lpopCommand, -2, W | F, NULL) \
    C(rpop, rpopCommand, -2, W | F, NULL) \
    C(lmpop, lmpopCommand, -4, W, NULL) \
    C(llen, llenCommand, 2, R | F, NULL) \
    C(lindex, lindexCommand, 3, R, NULL) \
    C(lset, lsetCommand, 4, W | M, NULL) \
    C(lrange, lrangeCommand, 4, R, NULL) \
    C(ltrim, ltrimCommand, 4, W, NULL) \
    C(lpos, lposCommand, -3, R, NULL) \
    C(lrem, lremCommand, 4, W, NULL) \
    C(rpoplpush, rpoplpushCommand, 3, W | M, NULL) \
    C(lmove, lmoveCommand, 5, W | M, NULL) \
    C(blpop, blpopCommand, -3, W | NS, NULL) \
    C(brpop, brpopCommand, -3, W | NS, NULL) \
    C(brpoplpush, brpoplpushCommand, 4, W | M | NS, NULL) \
    C(blmove, blmoveCommand, 6, W | M | NS, NULL) \
    C(blmpop, blmpopCommand, -5, W, NULL) \
    C(swapdb, swapdbCommand, 3, W | F, NULL) \
    C(sort, sortCommand, -2, W | M, NULL) \
    C(sort_ro, sortroCommand, -2, R, NULL) \
    C(multi, multiCommand, 1, \
      F | NS | CMD_LOADING | CMD_STALE | CMD_ALLOW_BUSY, NULL) \
    C(exec, execCommand, 1, NS | CMD_LOADING | CMD_STALE | CMD_SKIP_SLOWLOG, \
      NULL) \
    C(discard, discardCommand, 1, \
      F | NS | CMD_LOADING | CMD_STALE | CMD_ALLOW_BUSY, NULL) \
    C(watch, watchCommand, -2, \
      F | NS | CMD_LOADING | CMD_STALE | CMD_ALLOW_BUSY, NULL) \
    C(unwatch, unwatchCommand, 1, \
      F | NS | CMD_LOADING | CMD_STALE | CMD_ALLOW_BUSY, NULL) \
    C(config, NULL, -2, 0, configSubcommands) \
    C(object, NULL, -2, 0, objectSubcommands) \
    C(command, commandCommand, -1, CMD_LOADING | CMD_STALE, \
      commandSubcommands) \
    C(client, NULL, -2, 0, clientSubcommands) \
    C(info, infoCommand, -1, CMD_LOADING | CMD_STALE, NULL) \
    C(slowlog, NULL, -2, 0, slowlogSubcommands) \
    C(latency, NULL, -2, 0, latencySubcommands) \
    C(debug, debugCommand, -2, \
      A | NS | CMD_LOADING | CMD_STALE | CMD_PROTECTED, NULL) \
    C(module, NULL, -2, 0, moduleSubcommands) \
    C(time, timeCommand, 1, F | CMD_LOADING | CMD_STALE, NULL) \
    C(lolwut, lolwutCommand, -1, R | F, NULL) \
    C(subscribe, subscribeCommand, -2, NS | CMD_LOADING | CMD_STALE, NULL) \
    C(unsubscribe, unsubscribeCommand, -1, NS | CMD_LOADING | CMD_STALE, NULL) \
    C(psubscribe, psubscribeCommand, -2, NS | CMD_LOADING | CMD_STALE, NULL) \
    C(punsubscribe, punsubscribeCommand, -1, \
      NS | CMD_LOADING | CMD_STALE, NULL) \
    C(publish, publishCommand, 3, F | CMD_LOADING | CMD_STALE, NULL) \
    C(ssubscribe, ssubscribeCommand, -2, NS | CMD_LOADING | CMD_STALE, NULL) \
    C(sunsubscribe, sunsubscribeCommand, -1, \
      NS | CMD_LOADING | CMD_STALE, NULL) \
    C(spublish, spublishCommand, 3, F | CMD_LOADING | CMD_STALE, NULL) \
    C(pubsub, NULL, -2, 0, pubsubSubcommands) \
    C(bgrewriteaof, bgrewriteaofCommand, 1, A | NS, NULL) \
    C(bgsave, bgsaveCommand, -1, A | NS, NULL) \
    C(save, saveCommand, 1, A | NS | CMD_NO_MULTI, NULL) \
    C(lastsave, lastsaveCommand, 1, F | CMD_LOADING | CMD_STALE, NULL) \
    C(monitor, monitorCommand, 1, A | NS | CMD_LOADING | CMD_STALE, NULL) \
    C(reset, resetCommand, 1, \
      NS | CMD_LOADING | CMD_STALE | F | CMD_NO_AUTH | CMD_ALLOW_BUSY, NULL) \
    C(auth, authCommand, -2, \
      NS | CMD_LOADING | CMD_STALE | F | CMD_NO_AUTH | CMD_ALLOW_BUSY, NULL) \
    C(acl, NULL, -2, 0, aclSubcommands) \
    C(shutdown, shutdownCommand, -1, \
      A | NS | CMD_LOADING | CMD_STALE | CMD_NO_MULTI | CMD_ALLOW_BUSY, NULL) \
    C(function, NULL, -2, 0, functionSubcommands) \
    C(eval, evalCommand, -3, \
      NS | CMD_SKIP_MONITOR | CMD_MAY_REPLICATE | CMD_STALE, NULL) \
    C(evalsha, evalShaCommand, -3, \
      NS | CMD_SKIP_MONITOR | CMD_MAY_REPLICATE | CMD_STALE, NULL) \
    C(eval_ro, evalRoCommand, -3, \
      NS | CMD_SKIP_MONITOR | CMD_STALE | R, NULL) \
    C(evalsha_ro, evalShaRoCommand, -3, \
      NS | CMD_SKIP_MONITOR | CMD_STALE | R, NULL) \
    C(script, NULL, -2, 0, scriptSubcommands) \
    C(fcall, fcallCommand, -3, \
      NS | CMD_SKIP_MONITOR | CMD_MAY_REPLICATE | CMD_STALE, NULL) \
    C(fcall_ro, fcallroCommand, -3, \
      NS | CMD_SKIP_MONITOR | CMD_STALE | R, NULL) \
    C(sync, syncCommand, 1, A | NS | CMD_NO_MULTI, NULL) \
    C(psync, syncCommand, -3, A | NS | CMD_NO_MULTI, NULL) \
    C(replconf, replconfCommand, -1, \
      A | NS | CMD_LOADING | CMD_STALE | CMD_ALLOW_BUSY, NULL) \
    C(replicaof, replicaofCommand, 3, A | NS | CMD_STALE, NULL) \
    C(slaveof, replicaofCommand, 3, A | NS | CMD_STALE, NULL) \
    C(role, roleCommand, 1, F | NS | CMD_LOADING | CMD_STALE, NULL) \
    C(wait, waitCommand, 3, NS, NULL) \
    C(failover, failoverCommand, -1, A | NS | CMD_STALE, NULL) \
    C(cluster, NULL, -2, 0, clusterSubcommands) \
    C(asking, askingCommand, 1, F, NULL) \
    C(readonly, readonlyCommand, 1, F | CMD_LOADING | CMD_STALE, NULL) \
    C(readwrite, readwriteCommand, 1, F | CMD_LOADING | CMD_STALE, NULL)

/* CONFIG's subcommands: S(container, name, handler, arity, flags). */
#define CONFIG_SUBCOMMANDS(S) \
    S(config, get, configGetCommand, -3, A | NS | CMD_LOADING | CMD_STALE) \
    S(config, set, configSetCommand, -4, A | NS | CMD_LOADING | CMD_STALE) \
    S(config, resetstat, configResetStatCommand, 2, \
      A | NS | CMD_LOADING | CMD_STALE) \
    S(config, rewrite, configRewriteCommand, 2, \
      A | NS | CMD_LOADING | CMD_STALE) \
    S(config, help, configHelpCommand, 2, CMD_LOADING | CMD_STALE)

/* OBJECT's subcommands: S(container, name, handler, arity, flags). */
#define OBJECT_SUBCOMMANDS(S) \
    S(object, encoding, objectEncodingCommand, 3, R) \
    S(object, refcount, objectRefcountCommand, 3, R) \
    S(object, freq, objectFreqCommand, 3, R) \
    S(object, idletime, objectIdletimeCommand, 3, R) \
    S(object, help, objectHelpCommand, 2, CMD_LOADING | CMD_STALE)

/* MEMORY's subcommands: S(container, name, handler, arity, flags). */
#define MEMORY_SUBCOMMANDS(S) \
    S(memory, usage, memoryUsageCommand, -3, R) \
    S(memory, help, memoryHelpCommand, 2, CMD_LOADING | CMD_STALE) \
    S(memory, purge, memoryPurgeCommand, 2, 0) \
    S(memory, stats, memoryStatsCommand, 2, 0) \
    S(memory, doctor, memoryDoctorCommand, 2, 0)

/* MEMORY's subcommands whose name is no C identifier:
 * N(container, id, "name", handler, arity, flags). */
#define MEMORY_NAMED_SUBCOMMANDS(N) \
    N(memory, malloc_stats, "malloc-stats", memoryMallocStatsCommand, 2, 0)

/* COMMAND's subcommands: S(container, name, handler, arity, flags). */
#define COMMAND_SUBCOMMANDS(S) \
    S(command, count, commandCountCommand, 2, CMD_LOADING | CMD_STALE) \
    S(command, docs, commandDocsCommand, -2, CMD_LOADING | CMD_STALE) \
    S(command, getkeys, commandGetKeysCommand, -4, CMD_LOADING | CMD_STALE) \
    S(command, getkeysandflags, commandGetKeysAndFlagsCommand, -4, \
      CMD_LOADING | CMD_STALE) \
    S(command, help, commandHelpCommand, 2, CMD_LOADING | CMD_STALE) \
    S(command, info, commandInfoCommand, -2, CMD_LOADING | CMD_STALE) \
    S(command, list, commandListCommand, -2, CMD_LOADING | CMD_STALE)

/* CLIENT's subcommands: S(container, name, handler, arity, flags). */
#define CLIENT_SUBCOMMANDS(S) \
    S(client, id, clientIdCommand, 2, NS | CMD_LOADING | CMD_STALE) \
    S(client, setname, clientSetNameCommand, 3, NS | CMD_LOADING | CMD_STALE) \
    S(client, getname, clientGetNameCommand, 2, NS | CMD_LOADING | CMD_STALE) \
    S(client, info, clientInfoCommand, 2, NS | CMD_LOADING | CMD_STALE) \
    S(client, list, clientListCommand, -2, A | NS | CMD_LOADING | CMD_STALE) \
    S(client, unblock, clientUnblockCommand, -3, \
      A | NS | CMD_LOADING | CMD_STALE) \
    S(client, kill, clientKillCommand, -3, A | NS | CMD_LOADING | CMD_STALE) \
    S(client, pause, clientPauseCommand, -3, A | NS | CMD_LOADING | CMD_STALE) \
    S(client, unpause, clientUnpauseCommand, 2, \
      A | NS | CMD_LOADING | CMD_STALE) \
    S(client, reply, clientReplyCommand, 3, NS | CMD_LOADING | CMD_STALE) \
    S(client, help, clientHelpCommand, 2, CMD_LOADING | CMD_STALE) \
    S(client, getredir, clientGetredirCommand, 2, \
      NS | CMD_LOADING | CMD_STALE) \
    S(client, trackinginfo, clientTrackinginfoCommand, 2, \
      NS | CMD_LOADING | CMD_STALE) \
    S(client, tracking, clientTrackingCommand, -3, \
      NS | CMD_LOADING | CMD_STALE) \
    S(client, caching, clientCachingCommand, 3, NS | CMD_LOADING | CMD_STALE)

/* CLIENT's subcommands whose name is no C identifier:
 * N(container, id, "name", handler, arity, flags). */
#define CLIENT_NAMED_SUBCOMMANDS(N) \
    N(client, no_evict, "no-evict", clientNoEvictCommand, 3, \
      A | NS | CMD_LOADING | CMD_STALE)

/* FUNCTION's subcommands: S(container, name, handler, arity, flags). */
#define FUNCTION_SUBCOMMANDS(S) \
    S(function, delete, functionDeleteCommand, 3, W | NS) \
    S(function, dump, functionDumpCommand, 2, NS) \
    S(function, flush, functionFlushCommand, -2, W | NS) \
    S(function, help, functionHelpCommand, 2, CMD_LOADING | CMD_STALE) \
    S(function, kill, functionKillCommand, 2, NS | CMD_ALLOW_BUSY) \
    S(function, list, functionListCommand, -2, NS) \
    S(function, load, functionLoadCommand, -3, W | M | NS) \
    S(function, restore, functionRestoreCommand, -3, W | M | NS) \
    S(function, stats, functionStatsCommand, 2, NS | CMD_ALLOW_BUSY)

/* SCRIPT's subcommands: S(container, name, handler, arity, flags). */
#define SCRIPT_SUBCOMMANDS(S) \
    S(script, exists, scriptCommand, -3, NS) \
    S(script, flush, scriptCommand, -2, NS) \
    S(script, help, scriptCommand, 2, CMD_LOADING | CMD_STALE) \
    S(script, kill, scriptCommand, 2, NS | CMD_ALLOW_BUSY) \
    S(script, load, scriptCommand, 3, NS | CMD_STALE)

/* XGROUP's subcommands: S(container, name, handler, arity, flags). */
#define XGROUP_SUBCOMMANDS(S) \
    S(xgroup, create, xgroupCommand, -5, W | M) \
    S(xgroup, setid, xgroupCommand, -5, W) \
    S(xgroup, destroy, xgroupCommand, 4, W) \
    S(xgroup, createconsumer, xgroupCommand, 5, W | M) \
    S(xgroup, delconsumer, xgroupCommand, 5, W) \
    S(xgroup, help, xgroupCommand, 2, CMD_LOADING | CMD_STALE)

/* XINFO's subcommands: S(container, name, handler, arity, flags). */
#define XINFO_SUBCOMMANDS(S) \
    S(xinfo, consumers, xinfoCommand, 4, R) \
    S(xinfo, groups, xinfoCommand, 3, R) \
    S(xinfo, stream, xinfoCommand, -3, R) \
    S(xinfo, help, xinfoCommand, 2, CMD_LOADING | CMD_STALE)

/* PUBSUB's subcommands: S(container, name, handler, arity, flags). */
#define PUBSUB_SUBCOMMANDS(S) \
    S(pubsub, channels, pubsubChannelsCommand, -2, CMD_LOADING | CMD_STALE) \
    S(pubsub, numpat, pubsubNumpatCommand, 2, CMD_LOADING | CMD_STALE) \
    S(pubsub, numsub, pubsubNumsubCommand, -2, CMD_LOADING | CMD_STALE) \
    S(pubsub, shardchannels, pubsubShardChannelsCommand, -2, \
      CMD_LOADING | CMD_STALE) \
    S(pubsub, shardnumsub, pubsubShardNumsubCommand, -2, \
      CMD_LOADING | CMD_STALE) \
    S(pubsub, help, pubsubHelpCommand, 2, CMD_LOADING | CMD_STALE)

/* SLOWLOG's subcommands: S(container, name, handler, arity, flags). */
#define SLOWLOG_SUBCOMMANDS(S) \
    S(slowlog, get, slowlogGetCommand, -2, A | CMD_LOADING | CMD_STALE) \
    S(slowlog, help, slowlogHelpCommand, 2, CMD_LOADING | CMD_STALE) \
    S(slowlog, len, slowlogLenCommand, 2, A | CMD_LOADING | CMD_STALE) \
    S(slowlog, reset, slowlogResetCommand, 2, A | CMD_LOADING | CMD_STALE)

/* LATENCY's subcommands: S(container, name, handler, arity, flags). */
#define LATENCY_SUBCOMMANDS(S) \
    S(latency, doctor, latencyDoctorCommand, 2, \
      A | NS | CMD_LOADING | CMD_STALE) \
    S(latency, graph, latencyGraphCommand, 3, \
      A | NS | CMD_LOADING | CMD_STALE) \
    S(latency, help, latencyHelpCommand, 2, CMD_LOADING | CMD_STALE) \
    S(latency, histogram, latencyHistogramCommand, -2, \
      A | NS | CMD_LOADING | CMD_STALE) \
    S(latency, history, latencyHistoryCommand, 3, \
      A | NS | CMD_LOADING | CMD_STALE) \
    S(latency, latest, latencyLatestCommand, 2, \
      A | NS | CMD_LOADING | CMD_STALE) \
    S(latency, reset, latencyResetCommand, -2, A | NS | CMD_LOADING | CMD_STALE)

/* ACL's subcommands: S(container, name, handler, arity, flags). */
#define ACL_SUBCOMMANDS(S) \
    S(acl, cat, aclCatCommand, -2, NS | CMD_LOADING | CMD_STALE) \
    S(acl, help, aclHelpCommand, 2, CMD_LOADING | CMD_STALE) \
    S(acl, list, aclListCommand, 2, A | NS | CMD_LOADING | CMD_STALE) \
    S(acl, users, aclUsersCommand, 2, A | NS | CMD_LOADING | CMD_STALE) \
    S(acl, whoami, aclWhoamiCommand, 2, NS | CMD_LOADING | CMD_STALE) \
    S(acl, deluser, aclDeluserCommand, -3, A | NS | CMD_LOADING | CMD_STALE) \
    S(acl, dryrun, aclDryrunCommand, -4, A | NS | CMD_LOADING | CMD_STALE) \
    S(acl, genpass, aclGenpassCommand, -2, NS | CMD_LOADING | CMD_STALE) \
    S(acl, getuser, aclGetuserCommand, 3, A | NS | CMD_LOADING | CMD_STALE) \
    S(acl, load, aclLoadCommand, 2, A | NS | CMD_LOADING | CMD_STALE) \
    S(acl, log, aclLogCommand, -2, A | NS | CMD_LOADING | CMD_STALE) \
    S(acl, save, aclSaveCommand, 2, A | NS | CMD_LOADING | CMD_STALE) \
    S(acl, setuser, aclSetuserCommand, -3, A | NS | CMD_LOADING | CMD_STALE)

/* MODULE's subcommands: S(container, name, handler, arity, flags). */
#define MODULE_SUBCOMMANDS(S) \
    S(module, help, moduleHelpCommand, 2, CMD_LOADING | CMD_STALE) \
    S(module, list, moduleListCommand, 2, A | NS) \
    S(module, load, moduleLoadCommand, -3, A | NS | CMD_PROTECTED) \
    S(module, loadex, moduleLoadCommand, -3, A | NS | CMD_PROTECTED) \
    S(module, unload, moduleUnloadCommand, 3, A | NS | CMD_PROTECTED)

/* CLUSTER's subcommands: S(container, name, handler, arity, flags). A
 * server without cluster support refuses them all alike (cluster.c). */
#define CS (CMD_STALE)
#define CAS (A | CMD_STALE)
#define CLUSTER_SUBCOMMANDS(S) \
    S(cluster, addslots, clusterCommand, -3, CAS) \
    S(cluster, addslotsrange, clusterCommand, -4, CAS) \
    S(cluster, bumpepoch, clusterCommand, 2, CAS) \
    S(cluster, countkeysinslot, clusterCommand, 3, CS) \
    S(cluster, delslots, clusterCommand, -3, CAS) \
    S(cluster, delslotsrange, clusterCommand, -4, CAS) \
    S(cluster, failover, clusterCommand, -2, CAS) \
    S(cluster, flushslots, clusterCommand, 2, CAS) \
    S(cluster, forget, clusterCommand, 3, CAS) \
    S(cluster, getkeysinslot, clusterCommand, 4, CS) \
    S(cluster, help, clusterCommand, 2, CMD_LOADING | CMD_STALE) \
    S(cluster, info, clusterCommand, 2, CS) \
    S(cluster, keyslot, clusterCommand, 3, CS) \
    S(cluster, links, clusterCommand, 2, CS) \
    S(cluster, meet, clusterCommand, -4, CAS) \
    S(cluster, myid, clusterCommand, 2, CS) \
    S(cluster, nodes, clusterCommand, 2, CS) \
    S(cluster, replicas, clusterCommand, 3, CAS) \
    S(cluster, replicate, clusterCommand, 3, CAS) \
    S(cluster, reset, clusterCommand, -2, CAS | NS) \
    S(cluster, saveconfig, clusterCommand, 2, CAS) \
    S(cluster, setslot, clusterCommand, -4, CAS) \
    S(cluster, shards, clusterCommand, 2, CS) \
    S(cluster, slaves, clusterCommand, 3, CAS) \
    S(cluster, slots, clusterCommand, 2, CS)

/* CLUSTER's subcommands whose name is no C identifier:
 * N(container, id, "name", handler, arity, flags). */
#define CLUSTER_NAMED_SUBCOMMANDS(N) \
    N(cluster, count_failure_reports, "count-failure-reports", \
      clusterCommand, 3, CAS) \
    N(cluster, set_config_epoch, "set-config-epoch", clusterCommand, 3, CAS)

/* The ids: top-level commands in the table's order, then subcommands. */
enum {
#define CMD_ID(name, ...) CMDID_##name,
#define SUB_ID(container, name, ...) CMDID_##container##_##name,
    REDIS_COMMANDS(CMD_ID)
    CMDID_restore_asking,       /* the one name no C identifier can be */
    CONFIG_SUBCOMMANDS(SUB_ID)
    OBJECT_SUBCOMMANDS(SUB_ID)
    MEMORY_SUBCOMMANDS(SUB_ID)
    MEMORY_NAMED_SUBCOMMANDS(SUB_ID)
    COMMAND_SUBCOMMANDS(SUB_ID)
    CLIENT_SUBCOMMANDS(SUB_ID)
    CLIENT_NAMED_SUBCOMMANDS(SUB_ID)
    FUNCTION_SUBCOMMANDS(SUB_ID)
    SCRIPT_SUBCOMMANDS(SUB_ID)
    XGROUP_SUBCOMMANDS(SUB_ID)
    XINFO_SUBCOMMANDS(SUB_ID)
    PUBSUB_SUBCOMMANDS(SUB_ID)
    SLOWLOG_SUBCOMMANDS(SUB_ID)
    LATENCY_SUBCOMMANDS(SUB_ID)
    ACL_SUBCOMMANDS(SUB_ID)
    MODULE_SUBCOMMANDS(SUB_ID)
    CLUSTER_SUBCOMMANDS(SUB_ID)
    CLUSTER_NAMED_SUBCOMMANDS(SUB_ID)
    CMDID_COUNT
#undef CMD_ID
#undef SUB_ID
};

const int redisCommandCount = CMDID_COUNT;

#define SUB_ROW(container, name, proc, arity, flags) \
    { #name, proc, arity, flags, NULL, #container "|" #name, \
      CMDID_##container##_##name },
#define NAMED_ROW(container, id, name, proc, arity, flags) \
    { name, proc, arity, flags, NULL, #container "|" name, \
      CMDID_##container##_##id },
#define CMD_ROW(name, proc, arity, flags, subs) \
    { #name, proc, arity, flags, subs, #name, CMDID_##name },

static const redisCommand configSubcommands[] = {
    CONFIG_SUBCOMMANDS(SUB_ROW) END
};
static const redisCommand objectSubcommands[] = {
    OBJECT_SUBCOMMANDS(SUB_ROW) END
};
static const redisCommand memorySubcommands[] = {
    MEMORY_SUBCOMMANDS(SUB_ROW) MEMORY_NAMED_SUBCOMMANDS(NAMED_ROW) END
};
static const redisCommand commandSubcommands[] = {
    COMMAND_SUBCOMMANDS(SUB_ROW) END
};
static const redisCommand clientSubcommands[] = {
    CLIENT_SUBCOMMANDS(SUB_ROW) CLIENT_NAMED_SUBCOMMANDS(NAMED_ROW) END
};
static const redisCommand functionSubcommands[] = {
    FUNCTION_SUBCOMMANDS(SUB_ROW) END
};
static const redisCommand scriptSubcommands[] = {
    SCRIPT_SUBCOMMANDS(SUB_ROW) END
};
static const redisCommand xgroupSubcommands[] = {
    XGROUP_SUBCOMMANDS(SUB_ROW) END
};
static const redisCommand xinfoSubcommands[] = {
    XINFO_SUBCOMMANDS(SUB_ROW) END
};
static const redisCommand pubsubSubcommands[] = {
    PUBSUB_SUBCOMMANDS(SUB_ROW) END
};
static const redisCommand slowlogSubcommands[] = {
    SLOWLOG_SUBCOMMANDS(SUB_ROW) END
};
static const redisCommand latencySubcommands[] = {
    LATENCY_SUBCOMMANDS(SUB_ROW) END
};
static const redisCommand aclSubcommands[] = {
    ACL_SUBCOMMANDS(SUB_ROW) END
};
static const redisCommand moduleSubcommands[] = {
    MODULE_SUBCOMMANDS(SUB_ROW) END
};
static const redisCommand clusterSubcommands[] = {
    CLUSTER_SUBCOMMANDS(SUB_ROW) CLUSTER_NAMED_SUBCOMMANDS(NAMED_ROW) END
};

const redisCommand redisCommandTable[] = {
    REDIS_COMMANDS(CMD_ROW)
    /* RESTORE as a cluster's MIGRATE sends it to a slot being imported;
     * without cluster mode it is RESTORE. */
    { "restore-asking", restoreCommand, -4, W | M, NULL, "restore-asking",
      CMDID_restore_asking },
    END
};

int gkCommandId(const char *name) {
    for (const redisCommand *c = redisCommandTable;
         name && c->declared_name; c++)
        if (!strcasecmp(c->declared_name, name)) return c->id;
    return -1;
}
