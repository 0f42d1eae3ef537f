import { test } from 'vitest';
import { emptyLog, newSession } from './helpers';
test('dbg', async () => {
  const { session } = newSession();
  await session.boot(emptyLog());
  for (const a of [
    { kind: 'disk', preset: 'slow-fsync' },
    { kind: 'console', text: 'CONFIG SET appendonly yes' },
    { kind: 'wait', ns: 1e9 },
    { kind: 'console', text: `CONFIG SET appendfsync always` },
    { kind: 'workload', preset: 'benchmark', command: 'SET', clients: 4, requests: 0, keyspace: 1_000_000 },
    { kind: 'wait', ns: 3e9 },
  ] as const) session.act(a as never);
  const v0 = session.aof();
  console.log(JSON.stringify(v0.info), v0.now);
  session.act({ kind: 'crash', mode: 'power' });
  session.act({ kind: 'restart' });
  const r = session.aof().report!;
  console.log(JSON.stringify(r.crash), r.restartedAt);
  console.log(JSON.stringify(r.rows.filter((x) => x.outcome !== 'kept')));
  console.log(JSON.stringify(r.rows.slice(-8)));
  console.log(r.log);
});
