// Pub/Sub and keyspace notifications over real sockets, byte for byte:
// `glasskv server` and Debian's redis-server 7.0 each get a subscriber
// (one channel, one pattern over every keyspace and keyevent channel, one
// shard channel), a client blocked on a list, and a publisher that turns
// notify-keyspace-events on and runs writes of every type. Everything the
// subscriber and the publisher receive must be the same bytes from both
// servers, in RESP2 and in RESP3 (where messages are pushes and the
// subscriber may run any command).
//
// One pattern only: a message matching several patterns goes out in the
// order of the server's pattern table, a hash order of its own.
//
// Run: node --test tests/server/ (GLASSKV_BUILD=dir for a build of one's
// own, see servers.mjs).
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { cli, sleep, startServer } from './servers.mjs';

/** A connection that keeps every byte it receives. */
async function open(port) {
  const sock = createConnection({ host: '127.0.0.1', port });
  const conn = { sock, chunks: [], last: Date.now() };
  sock.on('data', (d) => {
    conn.chunks.push(d);
    conn.last = Date.now();
  });
  await new Promise((resolve, reject) => {
    sock.once('connect', resolve);
    sock.once('error', reject);
  });
  return conn;
}

/** Sends inline commands on conn. */
function send(conn, lines) {
  conn.sock.write(lines.map((l) => `${l}\r\n`).join(''));
}

/** Resolves once nothing has arrived on any of conns for quietMs. */
async function quiet(conns, quietMs = 150) {
  for (;;) {
    await sleep(quietMs / 3);
    if (conns.every((c) => Date.now() - c.last >= quietMs)) return;
  }
}

const text = (conn) => Buffer.concat(conn.chunks).toString('latin1');

const WRITES = [
  'CONFIG SET notify-keyspace-events KEAnm', 'CONFIG GET notify-keyspace-events',
  'PUBLISH news hello', 'PUBLISH __keyspace@0__:fake x', 'SPUBLISH shard m',
  'PUBSUB NUMSUB news other', 'PUBSUB NUMPAT', 'PUBSUB SHARDNUMSUB shard',
  'PUBSUB CHANNELS', 'PUBSUB SHARDCHANNELS sh*',
  'SET k v', 'SET k v2 EX 100', 'GETEX k PERSIST', 'GETEX k PX 100000', 'APPEND k x',
  'SETRANGE k 0 ab', 'INCR n', 'INCRBY n 4', 'INCRBYFLOAT f 1.5', 'MSET a 1 b 2',
  'MSETNX c 1 d 2', 'GETSET a 3', 'GETDEL b', 'SETNX a 9', 'SETBIT bits 7 1',
  'SETBIT bits 7 1', 'GET missing', 'EXISTS missing', 'RPUSH bl x', 'RPUSH bm x y',
  'ZADD bz 1 a 2 b', 'RPUSH l a b c',
  'LPUSH l z', 'LPUSHX nolist z', 'LINSERT l BEFORE a q', 'LSET l 0 y', 'LREM l 1 q',
  'LTRIM l 0 2', 'RPOPLPUSH l l2', 'LMOVE l2 l LEFT RIGHT', 'LPOP l', 'RPOP l 5',
  'HSET h f 1 g 2', 'HSETNX h f 5', 'HSETNX h e 5', 'HINCRBY h f 1',
  'HINCRBYFLOAT h g 0.5', 'HDEL h f g e', 'SADD s a b c', 'SREM s a nope', 'SMOVE s s2 b',
  'SADD s3 x b', 'SINTERSTORE si s2 s3', 'SUNIONSTORE su s2 s3', 'SDIFFSTORE sd s2 s3',
  'SDIFFSTORE sd s2 s2', 'SADD s4 only', 'SPOP s4', 'ZADD z 1 a 2 b 3 c', 'ZADD z XX CH 1 a',
  'ZINCRBY z 1 a', 'ZREM z b', 'ZADD z 5 d', 'ZREMRANGEBYRANK z 0 0',
  'ZREMRANGEBYSCORE z 100 200', 'ZUNIONSTORE zu 1 z', 'ZINTERSTORE zi 2 z nozset',
  'ZRANGESTORE zr z 0 -1', 'ZPOPMIN z', 'ZPOPMAX z 5', 'RPUSH sl c a b',
  'SORT sl ALPHA STORE sorted', 'EXPIRE sorted 100', 'PEXPIREAT sorted 99999999999999',
  'PERSIST sorted', 'RENAME sorted sorted2', 'RENAMENX sorted2 sl', 'COPY sorted2 sorted3',
  'MOVE sorted3 1', 'DEL sorted2 nokey', 'EXPIRE zu 0', 'UNLINK zr', 'SWAPDB 0 1',
  'SWAPDB 0 1', 'FLUSHDB', 'SET tmp v PX 30',
];

/** The subscriber's and the publisher's bytes from one server. */
async function session(kind, resp3) {
  const server = await startServer(kind);
  try {
    const sub = await open(server.port);
    const blocked = await open(server.port);
    const mover = await open(server.port);
    const zpopper = await open(server.port);
    const pub = await open(server.port);
    send(sub, [...(resp3 ? ['HELLO 3'] : []), 'SUBSCRIBE news',
      'PSUBSCRIBE __key*@*__:*', 'SSUBSCRIBE shard']);
    send(blocked, ['BLPOP bl 0']);
    send(mover, ['BLMOVE bm bmdst LEFT RIGHT 0']);
    send(zpopper, ['BZPOPMIN bz 0']);
    await quiet([sub, blocked, mover, zpopper]);
    // The HELLO reply holds the server's own id, version and so on.
    sub.chunks = [Buffer.from(text(sub).replace(/^%7\r\n[\s\S]*?\*0\r\n/, ''))];
    send(pub, WRITES);
    await quiet([sub, pub, blocked, mover, zpopper]);
    await sleep(300);           // tmp expires, lazily or actively
    send(sub, ['PING', 'PING hi', 'GET nokey', 'UNSUBSCRIBE', 'PUNSUBSCRIBE',
      'SUNSUBSCRIBE', 'UNSUBSCRIBE', 'PING']);
    await quiet([sub]);
    for (const c of [sub, blocked, mover, zpopper, pub]) c.sock.destroy();
    return {
      sub: text(sub), pub: text(pub), blocked: text(blocked) + text(mover) + text(zpopper),
    };
  } finally {
    await server.stop();
  }
}

describe('Pub/Sub and keyspace notifications are redis-server 7.0\'s bytes', () => {
  for (const resp3 of [false, true]) {
    it(`${resp3 ? 'RESP3' : 'RESP2'}: the subscriber, the blocked client and the `
      + 'publisher receive the same bytes from both servers', async () => {
      const [mine, theirs] = await Promise.all([session('glasskv', resp3),
        session('redis', resp3)]);
      assert.equal(mine.pub, theirs.pub);
      assert.equal(mine.blocked, theirs.blocked);
      assert.equal(mine.sub, theirs.sub);
      // The run exercised what it claims to.
      const head = resp3 ? '>' : '*';
      assert.ok(mine.sub.includes(`${head}3\r\n$7\r\nmessage\r\n$4\r\nnews\r\n$5\r\nhello`));
      assert.ok(mine.sub.includes('$22\r\n__keyevent@0__:expired\r\n$3\r\ntmp\r\n'));
      assert.ok(mine.sub.includes('$22\r\n__keyevent@1__:move_to\r\n$7\r\nsorted3\r\n'));
      assert.ok(mine.sub.includes('$17\r\n__keyspace@0__:bl\r\n$4\r\nlpop\r\n'));
      assert.ok(mine.sub.includes('$20\r\n__keyspace@0__:bmdst\r\n$5\r\nrpush\r\n'));
      assert.ok(mine.sub.includes('$17\r\n__keyspace@0__:bz\r\n$7\r\nzpopmin\r\n'));
      if (!resp3) assert.ok(mine.sub.includes("-ERR Can't execute 'get'"));
    });
  }

  it('PUBLISH and SPUBLISH reach a replica\'s stream as on redis-server, and the AOF never', async () => {
    /** The stream a replica attached with SYNC receives after the RDB,
     *  and what the AOF got meanwhile. */
    const replicate = async (kind) => {
      const dir = mkdtempSync(join(tmpdir(), 'glasskv-pubsub-'));
      const server = await startServer(kind, ['--dir', dir, '--appendonly', 'yes',
        '--repl-ping-replica-period', '3600']);
      try {
        const replica = await open(server.port);
        send(replica, ['SYNC']);
        let rdbEnd = -1;
        for (let i = 0; i < 200 && rdbEnd < 0; i++) {
          await sleep(25);
          const all = text(replica);
          const m = /^\n*\$(\d+)\r\n/.exec(all);
          if (m && all.length >= m[0].length + Number(m[1])) rdbEnd = m[0].length + Number(m[1]);
        }
        assert.ok(rdbEnd >= 0, 'no RDB after SYNC');
        cli(server.port, [], 'PUBLISH x m\nSPUBLISH s m\nMULTI\nPUBLISH x 1\nSET k v\nEXEC\n'
          + 'SELECT 2\nPUBLISH y 2\n');
        await quiet([replica]);
        const aof = readFileSync(join(dir, 'appendonlydir', 'appendonly.aof.1.incr.aof'),
          'latin1');
        replica.sock.destroy();
        return { stream: text(replica).slice(rdbEnd), aof };
      } finally {
        await server.stop();
        rmSync(dir, { recursive: true, force: true });
      }
    };
    const [mine, theirs] = [await replicate('glasskv'), await replicate('redis')];
    assert.equal(mine.stream, theirs.stream);
    assert.equal(mine.aof, theirs.aof);
    assert.ok(!mine.aof.includes('PUBLISH') && mine.aof.includes('SET'));
    assert.match(mine.stream, /^\*2\r\n\$6\r\nSELECT\r\n\$1\r\n0\r\n\*3\r\n\$7\r\nPUBLISH\r\n/);
    assert.match(mine.stream, /\*3\r\n\$8\r\nSPUBLISH\r\n\$1\r\ns\r\n\$1\r\nm\r\n/);
  });
});
