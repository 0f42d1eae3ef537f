// Client-side caching over real sockets, byte for byte: `glasskv server`
// and Debian's redis-server 7.0 each get a tracking client, the client its
// messages may be redirected to, and a writer; the same sequences run on
// both, and every byte each connection receives must be the same.
//
// After each write the tracking client reads every key again (MGET), so
// that each write of the list is checked for the keys it signals: a write
// that forgot a key, or named one too many, shows as a difference. In
// BCAST mode nothing needs reading again: each write's changed keys come
// as one message at the end of its event loop iteration.
//
// The client ids the messages name are replaced by the id's role, in case
// the two servers number their connections differently.
//
// Run: node --test tests/server/tracking.test.mjs (GLASSKV_BUILD=dir for a
// build of one's own, see servers.mjs).
import assert from 'node:assert/strict';
import { createConnection } from 'node:net';
import { describe, it } from 'node:test';
import { respEnd, sleep, startServer } from './servers.mjs';

/** A connection that keeps every byte it receives. */
async function open(port) {
  const sock = createConnection({ host: '127.0.0.1', port });
  const conn = { sock, chunks: [] };
  sock.on('data', (d) => conn.chunks.push(d));
  await new Promise((resolve, reject) => {
    sock.once('connect', resolve);
    sock.once('error', reject);
  });
  conn.text = () => Buffer.concat(conn.chunks).toString('latin1');
  conn.take = () => {
    const s = conn.text();
    conn.chunks = [];
    return s;
  };
  return conn;
}

/** The complete top-level RESP values at the start of s, and whether
 *  nothing is left after them. */
function values(s) {
  const out = [];
  let at = 0;
  while (at < s.length) {
    const end = respEnd(s, at);
    if (end < 0) return { out, whole: false };
    out.push(s.slice(at, end));
    at = end;
  }
  return { out, whole: true };
}

/** Sends inline commands on conn and waits until as many replies (pushes
 *  not counted) have come, up to 3 s. */
async function send(conn, lines) {
  const before = values(conn.text()).out.filter((v) => v[0] !== '>').length;
  conn.sock.write(lines.map((l) => `${l}\r\n`).join(''));
  const deadline = Date.now() + 3000;
  for (;;) {
    const { out, whole } = values(conn.text());
    const replies = out.filter((v) => v[0] !== '>').length;
    if (whole && replies >= before + lines.length) return;
    if (Date.now() > deadline) {
      throw new Error(`no reply to ${lines.join(' | ')}: ${JSON.stringify(conn.text())}`);
    }
    await sleep(2);
  }
}

/** Waits until the messages already sent to a RESP2 subscriber are in:
 *  a PING answered behind them (messages would count as replies). */
async function drain(sub) {
  const pong = '*2\r\n$4\r\npong\r\n$0\r\n\r\n';
  sub.sock.write('PING\r\n');
  const deadline = Date.now() + 3000;
  while (!sub.text().endsWith(pong)) {
    if (Date.now() > deadline) throw new Error(`no pong: ${JSON.stringify(sub.text())}`);
    await sleep(2);
  }
}

// Keys of every type the writes below touch; the tracking client reads
// them all again after each write.
const KEYS = ['k', 'n', 'f', 'a', 'b', 'c', 'd', 'bits', 'missing', 'l', 'l2', 'bl',
  'bm', 'bmdst', 'h', 's', 's2', 's3', 'si', 'su', 'sd', 's4', 'z', 'zu', 'zi', 'zr',
  'zd', 'sl', 'sorted', 'sorted2', 'sorted3', 'hll', 'hll2', 'hll3', 'x', 'geo',
  'geo2', 'bo', 'cp', 'tmp', 'k2'];

const WRITES = [
  'SET k v', 'SET k v2 EX 100', 'GETEX k PERSIST', 'GETEX k PX 100000', 'GETEX k',
  'APPEND k x', 'SETRANGE k 0 ab', 'SETRANGE k 0 ""', 'INCR n', 'INCRBY n 4', 'DECR n',
  'DECRBY n 2', 'INCRBYFLOAT f 1.5', 'MSET a 1 b 2', 'MSETNX c 1 d 2', 'MSETNX c 1 e 2',
  'GETSET a 3', 'GETDEL b', 'GETDEL b', 'SETNX a 9', 'SETNX b 9', 'SETEX k2 100 v',
  'PSETEX k2 100000 w', 'SET k v NX', 'SET k v XX GET', 'SETBIT bits 7 1',
  'SETBIT bits 7 1', 'BITFIELD bits SET u8 0 255', 'BITFIELD bits GET u8 0',
  'BITOP OR bo bits k', 'BITOP AND bo missing missing', 'GET missing', 'RPUSH bl x',
  'RPUSH bm x y', 'RPUSH l a b c', 'LPUSH l z', 'LPUSHX missing z', 'RPUSHX l w',
  'LINSERT l BEFORE a q', 'LINSERT l BEFORE nope q', 'LSET l 0 y', 'LREM l 1 q',
  'LREM l 1 nope', 'LTRIM l 0 3', 'RPOPLPUSH l l2', 'LMOVE l2 l LEFT RIGHT',
  'LPOP l', 'RPOP l 2', 'LMPOP 2 missing l LEFT COUNT 1', 'HSET h f 1 g 2',
  'HSETNX h f 5', 'HSETNX h e 5', 'HINCRBY h f 1', 'HINCRBYFLOAT h g 0.5',
  'HDEL h f nope', 'HDEL h nope', 'HMSET h x 1', 'SADD s a b c', 'SADD s a',
  'SREM s a nope', 'SMOVE s s2 b', 'SMOVE s s2 nope', 'SADD s3 x b',
  'SINTERSTORE si s2 s3', 'SUNIONSTORE su s2 s3', 'SDIFFSTORE sd s2 s3',
  'SDIFFSTORE sd s2 s2', 'SADD s4 only', 'SPOP s4', 'SADD s4 p', 'SPOP s4 2',
  'SPOP s4 5', 'ZADD z 1 a 2 b 3 c', 'ZADD z XX CH 1 a', 'ZADD z NX 9 a',
  'ZINCRBY z 1 a', 'ZREM z b', 'ZADD z 5 d', 'ZREMRANGEBYRANK z 0 0',
  'ZREMRANGEBYSCORE z 100 200', 'ZREMRANGEBYLEX z [x [y', 'ZUNIONSTORE zu 1 z',
  'ZINTERSTORE zi 2 z missing', 'ZDIFFSTORE zd 1 z', 'ZRANGESTORE zr z 0 -1',
  'ZPOPMIN z', 'ZPOPMAX z 5', 'ZMPOP 1 z MIN', 'ZADD z 1 a', 'RPUSH sl c a b',
  'SORT sl ALPHA STORE sorted', 'EXPIRE sorted 100', 'EXPIRE sorted 100 NX',
  'PEXPIREAT sorted 99999999999999', 'PERSIST sorted', 'PERSIST sorted',
  'RENAME sorted sorted2', 'RENAMENX sorted2 sl', 'RENAMENX sorted2 cp',
  'COPY cp sorted3', 'COPY sl sorted3 REPLACE', 'MOVE sorted3 1', 'DEL sorted2 nokey',
  'EXPIRE zu 0', 'UNLINK zr', 'PFADD hll a b', 'PFADD hll a', 'PFADD hll2 c',
  'PFMERGE hll3 hll hll2', 'PFCOUNT hll hll2', 'XADD x 1-1 f v', 'XADD x 2-1 f v',
  'XTRIM x MAXLEN 1', 'XDEL x 2-1', 'XGROUP CREATE x g $', 'XSETID x 5-0',
  'GEOADD geo 1 1 p1 2 2 p2', 'GEOSEARCHSTORE geo2 geo FROMLONLAT 1 1 BYRADIUS 500 km ASC',
  'GEORADIUS geo 1 1 500 km STORE geo2',
  'RESTORE missing 0 "\\x00\\x01v\\n\\x00\\x91\\b\\xce\\xb2\\x198\\x8a\\xce"',
  'RESTORE missing 0 "\\x00\\x01v\\n\\x00\\x91\\b\\xce\\xb2\\x198\\x8a\\xce" REPLACE',
  'SWAPDB 0 1', 'SWAPDB 0 1', 'SELECT 1', 'SET k inone', 'SELECT 0', 'FLUSHDB',
  'SET k again', 'FLUSHALL',
];

const MGET = `MGET ${KEYS.join(' ')}`;

/** A server with a writer, a blocked pair and the tracking client set up
 *  by `setup` (which returns { tracker, target? }); runs WRITES, the
 *  tracking client reading all keys after each (unless bcast). Returns
 *  the bytes each connection received after the setup. */
async function writesSession(kind, setup, { reread }) {
  const server = await startServer(kind, ['--enable-debug-command', 'yes']);
  try {
    const writer = await open(server.port);
    const blocked = await open(server.port);
    const mover = await open(server.port);
    const conns = await setup(server.port);
    blocked.sock.write('BLPOP bl 0\r\n');
    mover.sock.write('BLMOVE bm bmdst LEFT RIGHT 0\r\n');
    if (reread) await send(conns.tracker, [MGET]);
    for (const c of Object.values(conns)) c.take();
    writer.take();
    for (const w of WRITES) {
      await send(writer, [w]);
      if (reread) await send(conns.tracker, [MGET]);
      else await send(conns.tracker, ['PING']);
    }
    if (conns.target) await drain(conns.target);
    for (const c of Object.values(conns)) if (c !== conns.target) await send(c, ['PING']);
    const out = { writer: writer.take() };
    for (const [name, c] of Object.entries(conns)) out[name] = c.take();
    for (const c of [writer, blocked, mover, ...Object.values(conns)]) c.sock.destroy();
    return out;
  } finally {
    await server.stop();
  }
}

/** A RESP3 tracking client with the options given. */
const resp3 = (opts) => async (port) => {
  const tracker = await open(port);
  await send(tracker, ['HELLO 3', `CLIENT TRACKING on ${opts}`]);
  return { tracker };
};

/** A RESP2 tracking client redirecting to a subscriber. */
async function redirected(port) {
  const target = await open(port);
  const tracker = await open(port);
  await send(target, ['CLIENT ID']);
  const id = /^:(\d+)/.exec(target.text())[1];
  await send(target, ['SUBSCRIBE __redis__:invalidate']);
  await send(tracker, [`CLIENT TRACKING on REDIRECT ${id}`]);
  return { tracker, target };
}

/** Both servers' bytes of one session, compared connection by
 *  connection; returns glasskv's. */
async function same(session) {
  const [mine, theirs] = await Promise.all([session('glasskv'), session('redis')]);
  for (const name of Object.keys(theirs)) assert.equal(mine[name], theirs[name], name);
  return mine;
}

const INVALIDATE = '>2\r\n$10\r\ninvalidate\r\n';
const MESSAGE = '*3\r\n$7\r\nmessage\r\n$20\r\n__redis__:invalidate\r\n';

describe('client-side caching is redis-server 7.0\'s, byte for byte', () => {
  it('RESP3: every write pushes the keys it changed to the client that read them', async () => {
    const mine = await same((kind) => writesSession(kind, resp3(''), { reread: true }));
    // The run exercised what it claims to.
    assert.ok(mine.tracker.includes(`${INVALIDATE}*1\r\n$2\r\nbo\r\n`));
    assert.ok(mine.tracker.includes(`${INVALIDATE}*1\r\n$5\r\nbmdst\r\n`));
    assert.ok(mine.tracker.includes(`${INVALIDATE}*1\r\n$4\r\ngeo2\r\n`));
    assert.ok(mine.tracker.includes(`${INVALIDATE}_\r\n`));
  });

  it('RESP2: the messages go to the redirection as __redis__:invalidate messages', async () => {
    const mine = await same((kind) => writesSession(kind, redirected, { reread: true }));
    assert.ok(mine.target.includes(`${MESSAGE}*1\r\n$3\r\nhll\r\n`));
    assert.ok(mine.target.includes(`${MESSAGE}$-1\r\n`));
    assert.ok(!mine.tracker.includes('invalidate'));
  });

  it('BCAST: one message per prefix and loop iteration, the keys in order', async () => {
    const mine = await same((kind) => writesSession(kind, async (port) => {
      const all = await resp3('BCAST')(port);
      const some = await open(port);
      await send(some, ['HELLO 3', 'CLIENT TRACKING on BCAST PREFIX s PREFIX z PREFIX geo2']);
      return { tracker: all.tracker, some };
    }, { reread: false }));
    assert.ok(mine.tracker.includes(`${INVALIDATE}*2\r\n$1\r\na\r\n$1\r\nb\r\n`));
    assert.ok(mine.some.includes(`${INVALIDATE}*2\r\n$1\r\ns\r\n$2\r\ns2\r\n`));
  });

  it('a client\'s own changes, transactions, scripts, OPTIN, OPTOUT, NOLOOP, flushes, '
    + 'expiry, eviction and a redirection gone', async () => {
    const session = async (kind) => {
      const server = await startServer(kind, ['--enable-debug-command', 'yes']);
      try {
        const w = await open(server.port);
        const t = await open(server.port);
        const r = await open(server.port);
        await send(r, ['CLIENT ID']);
        const rid = /^:(\d+)/.exec(r.take())[1];
        await send(r, ['HELLO 3']);
        r.take();
        const steps = [
          [t, 'HELLO 3'], [t, 'CLIENT TRACKING on'], [w, 'MSET a 1 b 2 c 3'],
          [t, 'GET a'], [t, 'INCR a'], [t, 'MGET a b'], [t, 'MULTI'], [t, 'INCR a'],
          [t, 'GET b'], [t, 'SET b 5'], [t, 'EXEC'], [t, 'GET c'], [w, 'DEL c'],
          [t, 'EVAL "return redis.call(\'get\', \'zz\')" 2 c d'], [w, 'MSET d 1 c 1'],
          [t, 'EVAL "return redis.call(\'set\', KEYS[1], 1)" 1 c'], [t, 'GET c'],
          [t, 'EVAL "return redis.call(\'set\', KEYS[1], 1)" 1 c'],
          [t, 'EVAL_RO "return redis.call(\'ping\')" 1 a'], [w, 'SET a 1'],
          [t, 'GET a'], [t, 'FLUSHDB'], [t, 'GET a'], [w, 'FLUSHALL'],
          [t, 'CLIENT TRACKING on NOLOOP'], [t, 'MGET a b'], [t, 'SET a 1'], [w, 'SET b 1'],
          [t, 'CLIENT TRACKING off'], [t, 'CLIENT TRACKING on OPTIN'], [t, 'GET a'],
          [t, 'CLIENT CACHING yes'], [t, 'CLIENT GETREDIR'], [t, 'GET b'],
          [w, 'MSET a 2 b 2'], [t, 'CLIENT TRACKINGINFO'], [t, 'CLIENT TRACKING off'],
          [t, 'CLIENT TRACKING on OPTOUT'], [t, 'CLIENT CACHING no'], [t, 'GET a'],
          [t, 'GET b'], [w, 'MSET a 3 b 3'], [t, 'CLIENT TRACKING off'],
          [t, 'CLIENT TRACKING on'], [w, 'SET soon v PX 30'], [t, 'GET soon'],
          [w, 'DEBUG SLEEP 0.2'], ['wait', 400], [t, 'PING'], [w, 'FLUSHALL'], [t, 'PING'],
          [w, 'SET ev v'], [t, 'GET ev'], [w, 'CONFIG SET maxmemory-policy allkeys-random'],
          [w, 'CONFIG SET maxmemory 1'], [w, 'PING'], [w, 'CONFIG SET maxmemory 0'],
          [t, 'PING'], [t, 'SET ev2 v'], [t, 'GET ev2'], [t, 'CONFIG SET maxmemory 1'],
          [t, 'PING'], [t, 'CONFIG SET maxmemory 0'],
          [t, `CLIENT TRACKING on REDIRECT ${rid}`], [t, 'GET a'], [w, 'SET a 4'],
          [r, 'PING'], [t, 'GET a'], [r, 'QUIT'], [w, 'SET a 5'], [t, 'CLIENT TRACKINGINFO'],
          [t, 'GET a'], [w, 'FLUSHALL'], [t, 'PING'],
          [t, 'CLIENT TRACKING off'], [t, 'CLIENT TRACKING on BCAST PREFIX a PREFIX b PREFIX bc'],
          [t, 'PING'], [t, 'CLIENT TRACKINGINFO'], [w, 'SET bcd 1'], [t, 'PING'],
          [t, 'RESET'], [t, 'CLIENT TRACKINGINFO'],
        ];
        for (const [c, line] of steps) {
          if (c === 'wait') {
            // Long enough for the expire cycle of either server.
            await sleep(line);
          } else if (c === r && line === 'QUIT') {
            r.sock.write('QUIT\r\n');
            await sleep(100);
          } else {
            await send(c, [line]);
          }
        }
        const out = { tracker: t.take(), writer: w.take(), target: r.take() };
        for (const c of [w, t, r]) c.sock.destroy();
        // The target's id, which both servers need not give alike.
        out.tracker = out.tracker.replace(/^%7\r\n[\s\S]*?\*0\r\n/, '')
          .replace(new RegExp(`(tracking-redir-broken|redirect)\r\n:${rid}\r\n`, 'g'),
            '$1\r\n:RID\r\n');
        return out;
      } finally {
        await server.stop();
      }
    };
    const mine = await same(session);
    assert.ok(mine.tracker.includes('>2\r\n$21\r\ntracking-redir-broken\r\n:RID\r\n'));
    assert.ok(mine.tracker.includes(`${INVALIDATE}*1\r\n$2\r\nev\r\n`));
    assert.ok(mine.tracker.includes(`${INVALIDATE}*1\r\n$4\r\nsoon\r\n`));
    assert.ok(mine.target.includes(`${INVALIDATE}*1\r\n$1\r\na\r\n`));
    assert.ok(mine.tracker.includes("overlaps with another provided prefix 'bc'"));
  });

  it('tracking-table-max-keys drops keys until the table is within it, telling their '
    + 'clients', async () => {
    const session = async (kind) => {
      const server = await startServer(kind);
      try {
        const w = await open(server.port);
        const t = await open(server.port);
        await send(t, ['HELLO 3', 'CLIENT TRACKING on']);
        const keys = Array.from({ length: 250 }, (_, i) => `key${i}`);
        await send(t, [`MGET ${keys.join(' ')}`]);
        t.take();
        await send(w, ['INFO stats']);
        const before = /tracking_total_keys:(\d+)/.exec(w.take())[1];
        // Redis tries 100 keys on the first run over the limit, then 200:
        // the second command brings the table down to the limit.
        await send(w, ['CONFIG SET tracking-table-max-keys 1', 'PING', 'PING',
          'CONFIG SET tracking-table-max-keys 1000000', 'INFO stats']);
        const after = /tracking_total_keys:(\d+)/.exec(w.take())[1];
        await send(t, ['PING']);
        const pushes = t.take().split(INVALIDATE).length - 1;
        return { before, after, pushes };
      } finally {
        await server.stop();
      }
    };
    const [mine, theirs] = await Promise.all([session('glasskv'), session('redis')]);
    assert.deepEqual(mine, theirs);
    assert.deepEqual(mine, { before: '250', after: '1', pushes: 249 });
  });
});
