// A client library from the npm registry, node-redis (the `redis`
// package), talking to `glasskv server` and to Debian's redis-server 7.0
// started the same way, in the same run: a pipeline, an auto-pipelined
// batch, transactions, SCAN through the library's scanIterator, hashes,
// error replies, blocking pops and Pub/Sub (subscribers in RESP3 and RESP2).
// Each case runs on both servers; the library must see the
// same values and the same errors from both, and the values a model of the
// commands predicts.
//
// node-redis speaks RESP3 unless told otherwise: it opens every
// connection with HELLO 3, and reads maps, doubles and nulls as RESP3
// sends them.
//
// Run: node --test tests/server/ (GLASSKV_BUILD=dir for a build of one's
// own, see servers.mjs).
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import {
  ErrorReply, MultiErrorReply, WatchError, createClient,
} from 'redis';
import { glasskvBin, startServer } from './servers.mjs';

/** A connected node-redis client of the server on port, speaking RESP3
 * (or the protocol given). */
async function connect(port, RESP = 3) {
  const client = createClient({
    socket: { host: '127.0.0.1', port, reconnectStrategy: false }, RESP,
  });
  // Without a listener an 'error' event would throw; the test sees errors
  // through the commands' promises instead.
  client.on('error', () => {});
  await client.connect();
  return client;
}

/** Polls INFO clients until blocked_clients is n (or 5 s have passed). */
async function waitBlocked(client, n) {
  const deadline = Date.now() + 5000;
  for (;;) {
    const m = /blocked_clients:(\d+)/.exec(await client.info('clients'));
    if (m && Number(m[1]) === n) return;
    if (Date.now() > deadline) throw new Error(`blocked_clients never reached ${n}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** A promise's outcome as data: { value } or { error: class, message }. */
function settle(promise) {
  return promise.then((value) => ({ value }),
    (e) => ({ error: e.constructor.name, message: e.message }));
}

describe('node-redis gets from glasskv server what it gets from redis-server 7.0', () => {
  // One entry per server: { server, client, other } (other: a second
  // connection, for a write that a WATCH must notice).
  const ends = [];
  before(async () => {
    assert.ok(existsSync(glasskvBin), `${glasskvBin} is not built (make -C engine)`);
    const servers = await Promise.all([startServer('glasskv'), startServer('redis')]);
    for (const server of servers) {
      ends.push({ server, client: await connect(server.port),
        other: await connect(server.port) });
    }
  });
  after(async () => {
    for (const { client, other } of ends) {
      await client?.close();
      await other?.close();
    }
    await Promise.all(ends.map(({ server }) => server.stop()));
  });

  /** fn run against glasskv, then redis-server: [glasskv's, redis's]. */
  async function onBoth(fn) {
    const out = [];
    for (const end of ends) out.push(await fn(end));
    return out;
  }

  it('a pipeline of 1,000 commands gets its 1,000 replies, in order', async () => {
    // SET, INCR, GET of the key set two commands before, SADD of one of 40
    // members, over and over; a model gives each reply.
    const expected = [];
    const members = new Set();
    const build = (client) => {
      const p = client.multi();
      for (let i = 0; i < 1000; i++) {
        switch (i % 4) {
          case 0: p.set(`p:${i}`, `v${i}`); break;
          case 1: p.incr('p:count'); break;
          case 2: p.get(`p:${i - 2}`); break;
          default: p.sAdd('p:set', String(i % 40));
        }
      }
      return p;
    };
    for (let i = 0; i < 1000; i++) {
      switch (i % 4) {
        case 0: expected.push('OK'); break;
        case 1: expected.push((i - 1) / 4 + 1); break;
        case 2: expected.push(`v${i - 2}`); break;
        default: {
          const m = String(i % 40);
          expected.push(members.has(m) ? 0 : 1);
          members.add(m);
        }
      }
    }
    // execAsPipeline writes the commands at once, with no MULTI and EXEC.
    const [mine, theirs] = await onBoth(({ client }) => build(client).execAsPipeline());
    assert.equal(mine.length, 1000);
    assert.deepEqual(mine, expected);
    assert.deepEqual(mine, theirs);
  });

  it('1,000 commands issued in the same tick are auto-pipelined and all answered', async () => {
    const [mine, theirs] = await onBoth(({ client }) => Promise.all(
      Array.from({ length: 1000 }, (_, i) =>
        (i % 2 ? client.get(`auto:${i - 1}`) : client.set(`auto:${i}`, `${i}`)))));
    assert.deepEqual(mine, Array.from({ length: 1000 }, (_, i) => (i % 2 ? `${i - 1}` : 'OK')));
    assert.deepEqual(mine, theirs);
  });

  it('MULTI/EXEC runs the queued commands as one and returns their replies', async () => {
    const [mine, theirs] = await onBoth(async ({ client }) => {
      const replies = await client.multi().set('tx', '10').incrBy('tx', 5)
        .hSet('tx:h', 'f', 'v').get('tx').exec();
      return { replies, after: await client.get('tx') };
    });
    assert.deepEqual(mine, { replies: ['OK', 15, 1, '15'], after: '15' });
    assert.deepEqual(mine, theirs);
  });

  it('a WATCHed key changed by another client aborts EXEC: a null reply, a WatchError in the library', async () => {
    const [mine, theirs] = await onBoth(async ({ client, other }) => {
      // Through the library's transaction: EXEC's null becomes WatchError.
      await client.watch('w');
      await other.set('w', 'theirs');
      const library = await settle(client.multi().set('w', 'mine').exec());
      // The same by hand, to see EXEC's reply itself.
      const raw = [];
      for (const cmd of [['WATCH', 'w'], null, ['MULTI'], ['SET', 'w', 'mine'], ['EXEC']]) {
        if (cmd) raw.push(await client.sendCommand(cmd));
        else await other.set('w', 'again');
      }
      // Unwatched, the same transaction goes through.
      const unwatched = await client.multi().set('w', 'mine').exec();
      return { library, raw, unwatched, value: await client.get('w') };
    });
    assert.equal(mine.library.error, WatchError.name);
    assert.deepEqual(mine.raw, ['OK', 'OK', 'QUEUED', null]);
    assert.deepEqual(mine.unwatched, ['OK']);
    assert.equal(mine.value, 'mine');
    assert.deepEqual(mine, theirs);
  });

  it('scanIterator visits every one of 2,500 keys, with and without MATCH', async () => {
    const keys = Array.from({ length: 2500 }, (_, i) => `scan:${i}`);
    const [mine, theirs] = await onBoth(async ({ client }) => {
      await client.flushDb();
      const set = await Promise.all(keys.map((k, i) => client.set(k, String(i))));
      await client.set('other', 'x');
      const collect = async (options) => {
        const seen = new Set();
        let calls = 0;
        for await (const batch of client.scanIterator(options)) {
          for (const k of batch) seen.add(k);
          calls++;
        }
        return { keys: [...seen].sort(), calls };
      };
      const all = await collect({ COUNT: 100 });
      const matched = await collect({ MATCH: 'scan:*', COUNT: 20 });
      return { set: set.every((r) => r === 'OK'), size: await client.dbSize(), all, matched };
    });
    const sorted = [...keys].sort();
    assert.ok(mine.set);
    assert.equal(mine.size, 2501);
    assert.deepEqual(mine.all.keys, [...sorted, 'other'].sort());
    assert.deepEqual(mine.matched.keys, sorted);
    // More than one SCAN each: the cursor was followed to its end.
    assert.ok(mine.all.calls > 1 && mine.matched.calls > 1, JSON.stringify(mine.all.calls));
    assert.deepEqual(mine.all.keys, theirs.all.keys);
    assert.deepEqual(mine.matched.keys, theirs.matched.keys);
  });

  it('HSET and HGETALL round-trip a small hash and one of 600 fields, past the listpack limit of 512', async () => {
    const big = Object.fromEntries(Array.from({ length: 600 }, (_, i) => [`field:${i}`, `value ${i}`]));
    const [mine, theirs] = await onBoth(async ({ client }) => {
      const added = [await client.hSet('user:1', { name: 'Ada', lang: 'en', visits: '1' }),
        await client.hSet('user:1', { visits: '2', city: 'London' }),
        await client.hSet('user:big', big)];
      const encoding = async (k) => client.sendCommand(['OBJECT', 'ENCODING', k]);
      return {
        added,
        small: await client.hGetAll('user:1'),
        big: await client.hGetAll('user:big'),
        none: await client.hGetAll('user:none'),
        encodings: [await encoding('user:1'), await encoding('user:big')],
      };
    });
    assert.deepEqual(mine.added, [3, 1, 600]);
    assert.deepEqual(mine.small, { name: 'Ada', lang: 'en', visits: '2', city: 'London' });
    assert.deepEqual(mine.big, big);
    assert.deepEqual(mine.none, {});
    assert.deepEqual(mine.encodings, ['listpack', 'hashtable']);
    assert.deepEqual(mine, theirs);
  });

  it('error replies reject with the library\'s ErrorReply, and the connection goes on', async () => {
    const [mine, theirs] = await onBoth(async ({ client }) => {
      await client.hSet('err:h', 'f', 'v');
      await client.set('err:s', 'not a number');
      const wrongType = client.incr('err:h').catch((e) => e);
      const unknown = client.sendCommand(['NOSUCHCOMMAND', 'a']).catch((e) => e);
      const errors = [await wrongType, await unknown];
      // An error inside EXEC: the others still ran, and the library says
      // which one failed.
      const inExec = await client.multi().set('err:t', 'x').incr('err:s').get('err:t').exec()
        .catch((e) => e);
      return {
        classes: errors.map((e) => e instanceof ErrorReply),
        messages: errors.map((e) => e.message),
        inExec: { multi: inExec instanceof MultiErrorReply, indexes: inExec.errorIndexes,
          first: inExec.replies?.[0], last: inExec.replies?.[2],
          error: inExec.replies?.[1] instanceof ErrorReply && inExec.replies[1].message },
        ping: await client.ping(),
      };
    });
    assert.deepEqual(mine.classes, [true, true]);
    assert.deepEqual(mine.messages, [
      'WRONGTYPE Operation against a key holding the wrong kind of value',
      "ERR unknown command 'NOSUCHCOMMAND', with args beginning with: 'a' ",
    ]);
    assert.deepEqual(mine.inExec, { multi: true, indexes: [1], first: 'OK', last: 'x',
      error: 'ERR value is not an integer or out of range' });
    assert.equal(mine.ping, 'PONG');
    assert.deepEqual(mine, theirs);
  });

  it('blocking pops wait for another connection\'s push, are served first blocked first, and time out with null', async () => {
    const [mine, theirs] = await onBoth(async ({ server, client }) => {
      const a = await connect(server.port);
      const b = await connect(server.port);
      try {
        await client.del(['bl:q', 'bl:dst', 'bl:none']);
        // Nothing to pop: both block, a first.
        const first = a.blPop('bl:q', 0);
        await waitBlocked(client, 1);
        const second = b.blMove('bl:q', 'bl:dst', 'RIGHT', 'LEFT', 0);
        await waitBlocked(client, 2);
        const pushed = await client.rPush('bl:q', ['x', 'y', 'z']);
        const served = [await first, await second];
        // Something to pop: no blocking at all.
        const mpop = await a.blmPop(0, ['bl:none', 'bl:q'], 'LEFT', { COUNT: 5 });
        const t0 = Date.now();
        const timedOut = await b.brPop('bl:none', 0.2);
        const waited = Date.now() - t0;
        return {
          pushed, served, mpop, timedOut, waitedForTimeout: waited >= 150,
          dst: await client.lRange('bl:dst', 0, -1),
          exists: await client.exists('bl:q'),
          blocked: /blocked_clients:(\d+)/.exec(await client.info('clients'))[1],
        };
      } finally {
        await a.close();
        await b.close();
      }
    });
    assert.deepEqual(mine, {
      pushed: 3,
      served: [{ key: 'bl:q', element: 'x' }, 'z'],
      mpop: ['bl:q', ['y']],
      timedOut: null,
      waitedForTimeout: true,
      dst: ['z'],
      exists: 0,
      blocked: '0',
    });
    assert.deepEqual(mine, theirs);
  });
  for (const resp of [3, 2]) {
    it(`RESP${resp} subscribers of the library hear PUBLISH, SPUBLISH and keyspace `
      + 'notifications, in order, and leave cleanly', async () => {
      const [mine, theirs] = await onBoth(async ({ server, client }) => {
        const sub = await connect(server.port, resp);
        const heard = [];
        const listener = (kind) => (message, channel) => heard.push([kind, channel, message]);
        try {
          await sub.subscribe('lib:news', listener('message'));
          await sub.pSubscribe('__keyspace@0__:lib:*', listener('pmessage'));
          await sub.sSubscribe('lib:shard', listener('smessage'));
          await client.configSet('notify-keyspace-events', 'KA');
          const receivers = [await client.publish('lib:news', 'hi'),
            await client.sPublish('lib:shard', 's'), await client.publish('lib:none', 'x')];
          await client.set('lib:k', 'v');
          await client.rPush('lib:l', ['a', 'b']);
          await client.del(['lib:k', 'lib:l']);
          const counts = {
            numsub: await client.pubSubNumSub(['lib:news', 'lib:none']),
            numpat: await client.pubSubNumPat(),
            shard: await client.pubSubShardNumSub('lib:shard'),
          };
          const deadline = Date.now() + 5000;
          while (heard.length < 6 && Date.now() < deadline)
            await new Promise((r) => setTimeout(r, 5));
          await sub.unsubscribe();
          await sub.pUnsubscribe();
          await sub.sUnsubscribe();
          const after = await client.pubSubNumSub('lib:news');
          // String(): in RESP2 the library hands this PONG over as a Buffer.
          return { receivers, counts, heard, after, ping: String(await sub.ping()) };
        } finally {
          await client.configSet('notify-keyspace-events', '');
          await sub.close();
        }
      });
      assert.deepEqual(mine, {
        receivers: [1, 1, 0],
        counts: { numsub: { 'lib:news': 1, 'lib:none': 0 }, numpat: 1,
          shard: { 'lib:shard': 1 } },
        heard: [['message', 'lib:news', 'hi'], ['smessage', 'lib:shard', 's'],
          ['pmessage', '__keyspace@0__:lib:k', 'set'],
          ['pmessage', '__keyspace@0__:lib:l', 'rpush'],
          ['pmessage', '__keyspace@0__:lib:k', 'del'],
          ['pmessage', '__keyspace@0__:lib:l', 'del']],
        after: { 'lib:news': 0 },
        ping: 'PONG',
      });
      assert.deepEqual(mine, theirs);
    });
  }
});
