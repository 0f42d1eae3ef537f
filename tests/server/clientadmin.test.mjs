// Connection administration on real sockets, `glasskv server` next to
// Debian's redis-server 7.0: what CLIENT KILL does to a connection, the
// bytes a MONITOR connection receives, CLIENT PAUSE holding a writer and
// letting it go, and AUTH against requirepass. Both servers get the same
// commands; what comes back must be the same bytes, once the parts that
// differ between any two runs (the monitor's clock, client ports) are
// masked.
//
// Run: node --test tests/server/ (GLASSKV_BUILD=dir for a build of one's
// own, see servers.mjs).
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { after, before, describe, it } from 'node:test';
import {
  command as cmd, openConnection as open, sleep, startServer, until,
} from './servers.mjs';

/** Runs scenario against both servers and returns both outcomes. */
async function both(servers, scenario) {
  return Promise.all([scenario(servers.g.port), scenario(servers.r.port)]);
}

describe('connection administration matches redis-server 7.0 on real sockets', () => {
  const servers = {};
  before(async () => {
    [servers.g, servers.r] = await Promise.all([
      startServer('glasskv'), startServer('redis')]);
  });
  after(async () => {
    await Promise.all([servers.g?.stop(), servers.r?.stop()]);
  });

  it('CLIENT KILL closes another connection at once, and the caller after its reply', async () => {
    const [g, r] = await both(servers, async (port) => {
      const victim = await open(port);
      const killer = await open(port);
      const id = (await cmd(victim, 'CLIENT ID')).slice(1, -2);
      const out = [await cmd(killer, `CLIENT KILL ID ${id}`)];
      out.push(await until(() => victim.closed) ? 'victim closed' : 'victim open');
      out.push(await cmd(killer, `CLIENT KILL ID ${id}`));
      out.push(await cmd(killer, 'CLIENT KILL 10.0.0.1:1'));
      const other = await open(port);
      await cmd(other, 'PING');
      killer.send('CLIENT KILL TYPE normal SKIPME no\r\n');
      out.push(await until(() => killer.closed) ? 'killer closed' : 'killer open');
      out.push(killer.take());
      out.push(await until(() => other.closed) ? 'other closed' : 'other open');
      return out;
    });
    assert.deepEqual(g, r);
    assert.deepEqual(g, [':1\r\n', 'victim closed', ':0\r\n', '-ERR No such client\r\n',
      'killer closed', ':2\r\n', 'other closed']);
  });

  it('MONITOR receives the same lines, quoting, redaction and hiding included', async () => {
    const mask = (s) => s.replace(/^\+\d+\.\d{6} /gm, '+T ')
      .replace(/127\.0\.0\.1:\d+\]/g, '127.0.0.1:P]');
    const [g, r] = await both(servers, async (port) => {
      const mon = await open(port);
      const ok = await cmd(mon, 'MONITOR');
      const c = await open(port);
      for (const line of ['SET k "a b\\x00\\"c\\n"', 'SET n 10 EX 100', 'INCRBYFLOAT f 1.5',
        'CLIENT LIST', 'CONFIG SET maxmemory 0', 'AUTH who what', 'AUTH pw',
        'HELLO 2 AUTH default wrong', 'SELECT 5', 'GET k', 'MULTI', 'SET a 1', 'EXEC',
        'MULTI', 'NOSUCH', 'EXEC', 'PING', 'DEBUG SLEEP 0'])
        await cmd(c, line);
      await sleep(100);
      const lines = mask(mon.take());
      mon.close();
      c.close();
      return [ok, lines];
    });
    assert.equal(g[0], '+OK\r\n');
    assert.equal(g[1], r[1]);
    assert.match(g[1], /^\+T \[0 127\.0\.0\.1:P\] "SET" "k" "a b\\x00\\"c\\n"\r\n/);
  });

  it('CLIENT PAUSE WRITE holds a writer, its later commands unread, until the pause ends', async () => {
    const [g, r] = await both(servers, async (port) => {
      const admin = await open(port);
      const writer = await open(port);
      const out = [await cmd(admin, 'CLIENT PAUSE 400 WRITE')];
      const t0 = Date.now();
      writer.send('SET paused 1\r\nPING\r\n');
      let list = '';
      await sleep(100);
      for (let k = 0; k < 20 && !/flags=b /.test(list); k++)
        list = await cmd(admin, 'CLIENT LIST');
      out.push(writer.bytes());
      out.push(await cmd(admin, 'GET paused'));
      out.push(/flags=b .* qbuf=6 .* cmd=set /.test(list) ? 'held' : list);
      await until(() => writer.bytes().includes('PONG'), 2000);
      const waited = Date.now() - t0;
      out.push(waited >= 380 ? 'waited' : `only ${waited} ms`);
      out.push(writer.take());
      out.push(await cmd(admin, 'GET paused'));
      admin.close();
      writer.close();
      return out;
    });
    assert.deepEqual(g, r);
    assert.deepEqual(g, ['+OK\r\n', '', '$-1\r\n', 'held', 'waited', '+OK\r\n+PONG\r\n',
      '$1\r\n1\r\n']);
  });

  it('CONFIG SET of port, bind and the host\'s fixed options answers as redis-server does', async () => {
    const busy = createServer();
    await new Promise((r) => busy.listen(0, '127.0.0.1', r));
    const busyPort = busy.address().port;
    const [g, r] = await both(servers, async (port) => {
      const c = await open(port);
      const out = [];
      for (const line of [`CONFIG SET port ${port}`, 'CONFIG SET tcp-keepalive 120',
        'CONFIG GET tcp-keepalive', 'CONFIG SET daemonize yes', 'CONFIG SET tcp-backlog 10',
        'CONFIG SET dir /tmp', `CONFIG SET maxmemory 1mb port ${busyPort}`,
        'CONFIG GET maxmemory', 'CONFIG SET port 1 port 2', 'CONFIG SET bind 127.0.0.1',
        'CONFIG SET tcp-keepalive 300', 'PING'])
        out.push((await cmd(c, line)).replace(String(port), 'PORT'));
      c.close();
      return out;
    });
    busy.close();
    assert.deepEqual(g, r);
  });

  it('requirepass asks new connections for AUTH, with the same errors', async () => {
    const [g, r] = await both(servers, async (port) => {
      const admin = await open(port);
      const out = [await cmd(admin, 'CONFIG SET requirepass s3cret')];
      out.push(await cmd(admin, 'PING'));
      const c = await open(port);
      for (const line of ['PING', 'HELLO 3', 'AUTH wrong', 'AUTH nobody s3cret',
        'HELLO 2 AUTH default wrong', 'AUTH s3cret', 'PING', 'RESET', 'PING',
        'AUTH default s3cret', 'ACL WHOAMI', 'ACL LIST', 'CONFIG GET requirepass',
        'CONFIG SET requirepass ""', 'AUTH x'])
        out.push(await cmd(c, line));
      admin.close();
      c.close();
      return out;
    });
    assert.deepEqual(g, r);
  });
});
