// Sorted set replies in both protocols, byte for byte: `glasskv server`
// and Debian's redis-server 7.0 get the same commands on a raw socket,
// first in RESP3 (HELLO 3), where scores are doubles and WITHSCORES
// results, pops and ZRANDMEMBER are arrays of [member, score] pairs,
// then in RESP2. Only deterministic replies are asked for.
//
// Run: node --test tests/server/ (GLASSKV_BUILD=dir for a build of one's
// own, see servers.mjs).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { raw, startServer } from './servers.mjs';

const COMMANDS = [
  'ZADD z 1 a 2 b 3 c 4 d 5 e', 'ZADD z2 1 b 2 c 3 x', 'SADD s c x y',
  'ZPOPMIN z', 'ZPOPMIN z 1', 'ZPOPMAX z 2', 'ZPOPMAX z 0', 'ZPOPMIN nosuch',
  'ZPOPMIN nosuch 2', 'ZMPOP 1 nosuch MIN', 'ZMPOP 2 nosuch z MAX COUNT 5',
  'ZADD z 1 a 2 b 3 c 4 d 5 e', 'ZRANGE z 0 -1 WITHSCORES', 'ZRANGE z 0 1',
  'ZRANGEBYSCORE z 2 4 WITHSCORES', 'ZRANGEBYSCORE z 2 4 WITHSCORES LIMIT 1 1',
  'ZREVRANGEBYSCORE z 4 2 WITHSCORES', 'ZRANGE z 5 0 BYSCORE REV WITHSCORES',
  'ZRANGE nosuch 0 -1 WITHSCORES', 'ZREVRANGE z 0 1 WITHSCORES',
  'ZUNION 3 z z2 s WITHSCORES', 'ZINTER 2 z z2 WITHSCORES', 'ZDIFF 2 z z2 WITHSCORES',
  'ZUNION 2 z z2', 'ZINTERCARD 2 z z2', 'ZRANDMEMBER z 10 WITHSCORES',
  'ZRANDMEMBER z 10', 'ZRANDMEMBER nosuch', 'ZRANDMEMBER nosuch 3 WITHSCORES',
  'ZRANDMEMBER z 0', 'ZADD one 7 x', 'ZRANDMEMBER one -2 WITHSCORES',
  'ZRANDMEMBER one 1 WITHSCORES', 'ZRANDMEMBER one', 'ZSCORE z a', 'ZSCORE z nosuch',
  'ZMSCORE z a nosuch', 'ZINCRBY z 1.5 a', 'ZADD z INCR 1 a', 'ZADD z NX INCR 1 a',
  'ZRANGESTORE z3 z 0 -1', 'ZRANGE z3 0 -1 WITHSCORES', 'ZUNIONSTORE z4 2 z z2',
  'ZRANGE z4 0 -1 WITHSCORES', 'ZREMRANGEBYSCORE z4 -inf 3', 'ZREMRANGEBYRANK z4 0 0',
  'ZREMRANGEBYLEX z4 - +', 'CONFIG SET zset-max-listpack-entries 0',
  'ZADD sk 1 a 2 b 3 c', 'ZRANDMEMBER sk 5 WITHSCORES', 'ZPOPMIN sk 2',
  'ZMPOP 1 sk MIN COUNT 2', 'ZMPOP 1 sk MIN COUNT 2',
  'CONFIG SET zset-max-listpack-entries 128',
];

describe('sorted set replies are redis-server 7.0\'s bytes in RESP3 and RESP2', () => {
  it('HELLO 3, then HELLO 2: the same bytes from both servers', async () => {
    const lines = ['HELLO 3', ...COMMANDS, 'FLUSHALL', 'HELLO 2', ...COMMANDS];
    const bytes = lines.map((l) => `${l}\r\n`).join('');
    const [g, r] = await Promise.all([startServer('glasskv'), startServer('redis')]);
    let mine, theirs;
    try {
      [mine, theirs] = await Promise.all([raw(g.port, bytes), raw(r.port, bytes)]);
    } finally {
      await Promise.all([g.stop(), r.stop()]);
    }
    // Client ids differ between the two servers; nothing else may.
    const norm = (b) => b.toString('latin1').replace(/(\$2\r\nid\r\n:)\d+/g, '$1N');
    assert.equal(norm(mine.data), norm(theirs.data));
    assert.match(norm(mine.data), /\*2\r\n\$1\r\na\r\n,1\r\n/);
    assert.match(norm(mine.data), /\*1\r\n\*2\r\n\$1\r\nb\r\n,2\r\n/);
  });
});
