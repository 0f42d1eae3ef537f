// Names for the command ids in GK_TR_CMD records. The engine numbers its
// commands (and subcommands) in its command table; rather than copy that
// table, this asks the engine: each command below is run once in a scratch
// world, and the id its CMD record carries is noted. A command not listed
// here shows as its number.
import { TraceType, type Glasskv } from './engine';
import { encodeRequest } from './resp';

const PROBES: string[][] = [
  ['GET', 'k'], ['SET', 'k', 'v'], ['INCR', 'n'], ['DECR', 'n'], ['INCRBY', 'n', '2'], ['PING'], ['ECHO', 'x'],
  ['INFO'], ['MULTI'], ['EXEC'], ['MULTI'], ['DISCARD'], ['WATCH', 'k'], ['UNWATCH'], ['DEL', 'k'], ['EXISTS', 'k'],
  ['SELECT', '0'], ['SCAN', '0'], ['DBSIZE'], ['KEYS', '*'], ['RANDOMKEY'], ['TYPE', 'n'], ['EXPIRE', 'n', '100'],
  ['PEXPIRE', 'n', '100000'], ['TTL', 'n'], ['PTTL', 'n'], ['PERSIST', 'n'], ['MSET', 'a', '1'], ['MGET', 'a'],
  ['APPEND', 'a', 'x'], ['STRLEN', 'a'], ['GETSET', 'a', 'y'], ['SETNX', 'b', '1'], ['SETEX', 'c', '10', 'v'],
  ['SADD', 's', '1'], ['SMEMBERS', 's'], ['SCARD', 's'], ['SREM', 's', '1'], ['SSCAN', 's', '0'],
  ['HSET', 'h', 'f', 'v'], ['HGET', 'h', 'f'], ['HGETALL', 'h'], ['HDEL', 'h', 'f'], ['HSCAN', 'h', '0'],
  ['ZADD', 'z', '1', 'a'], ['ZRANGE', 'z', '0', '-1'], ['ZSCORE', 'z', 'a'], ['ZREM', 'z', 'a'], ['ZSCAN', 'z', '0'],
  ['TIME'], ['CLIENT', 'LIST'], ['CLIENT', 'INFO'], ['CLIENT', 'ID'], ['CONFIG', 'GET', 'hz'],
  ['CONFIG', 'SET', 'hz', '10'], ['CONFIG', 'RESETSTAT'], ['DEBUG', 'HTSTATS', '0'], ['DEBUG', 'POPULATE', '1'],
  ['COMMAND', 'COUNT'], ['FLUSHDB'], ['FLUSHALL'], ['BGREWRITEAOF'], ['SUBSCRIBE', 'c'],
  ['UNSUBSCRIBE'], ['PSUBSCRIBE', 'c*'], ['PUNSUBSCRIBE'], ['PUBLISH', 'c', 'm'],
  ['PUBSUB', 'NUMPAT'], ['QUIT'],
];

export function learnCommandNames(gk: Glasskv): Record<number, string> {
  const world = gk.createWorld({ seed: 1 });
  try {
    world.traceEnable(1 << TraceType.CMD);
    const node = world.addServer();
    let conn = world.openConn(node);
    const names: Record<number, string> = {};
    for (const argv of PROBES) {
      if (!world.isOpen(conn)) conn = world.openConn(node);
      const mark = world.traceLastSeq();
      world.send(conn, encodeRequest(argv));
      world.runUntilIdle();
      world.recv(conn);
      const cmds = world.traceReadAll(mark).filter((r) => r.type === TraceType.CMD);
      const last = cmds[cmds.length - 1];
      if (!last) continue;
      const sub = argv.length > 1 && ['CLIENT', 'CONFIG', 'DEBUG', 'COMMAND', 'PUBSUB'].includes(argv[0]);
      names[last.d] ??= sub ? `${argv[0]} ${argv[1]}` : argv[0];
    }
    return names;
  } finally {
    world.release();
  }
}
