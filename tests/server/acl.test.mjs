// ACL users on real sockets, `glasskv server` next to Debian's
// redis-server 7.0: what deleting or changing a user does to the
// connections logged in as it, the rules a transaction is checked against
// at EXEC, the ACL log as a second connection reads it, and ACL SAVE and
// LOAD with an aclfile. Both servers get the same commands; what comes
// back must be the same bytes, once the parts that differ between any two
// runs (times, client ids and ports) are masked.
//
// Run: node --test tests/server/ (GLASSKV_BUILD=dir for a build of one's
// own, see servers.mjs).
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  command as cmd, openConnection as open, startServer, until,
} from './servers.mjs';

/** Runs scenario against both servers and returns both outcomes. */
async function both(servers, scenario) {
  return Promise.all([scenario(servers.g), scenario(servers.r)]);
}

describe('ACL users match redis-server 7.0 on real sockets', () => {
  const servers = {};
  const dirs = [];
  before(async () => {
    // Each server has a directory of its own holding its aclfile.
    const start = async (kind) => {
      const dir = mkdtempSync(join(tmpdir(), `glasskv-acl-${kind}-`));
      dirs.push(dir);
      writeFileSync(join(dir, 'users.acl'),
        'user alice on allcommands allkeys &* >alice\n'
        + 'user bob on -@all +@set +acl ~set* &* >bob\n'
        + 'user default on nopass ~* &* +@all\n');
      const s = await startServer(kind, ['--dir', dir, '--aclfile', 'users.acl']);
      s.dir = dir;
      return s;
    };
    [servers.g, servers.r] = await Promise.all([start('glasskv'), start('redis')]);
  });
  after(async () => {
    await Promise.all([servers.g?.stop(), servers.r?.stop()]);
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('deleting a user closes its connections, the caller\'s own after the reply', async () => {
    const [g, r] = await both(servers, async ({ port }) => {
      const admin = await open(port);
      const self = await open(port);
      const other = await open(port);
      const out = [await cmd(admin, 'ACL SETUSER using on +acl >passwd')];
      out.push(await cmd(self, 'AUTH using passwd'));
      out.push(await cmd(other, 'AUTH using passwd'));
      out.push(await cmd(self, 'ACL DELUSER using'));
      out.push(await until(() => self.closed) ? 'self closed' : 'self open');
      out.push(await until(() => other.closed) ? 'other closed' : 'other open');
      out.push(await cmd(admin, 'ACL SETUSER unused on >x'));
      out.push(await cmd(admin, 'ACL DELUSER unused'));
      out.push(await cmd(admin, 'PING'));
      admin.close();
      return out;
    });
    assert.deepEqual(g, r);
    assert.deepEqual(g, ['+OK\r\n', '+OK\r\n', '+OK\r\n', ':1\r\n', 'self closed',
      'other closed', '+OK\r\n', ':1\r\n', '+PONG\r\n']);
  });

  it('a subscriber is closed when its user loses the channel, kept when they grow', async () => {
    const [g, r] = await both(servers, async ({ port }) => {
      const admin = await open(port);
      const sub = await open(port);
      const out = [await cmd(admin, 'ACL SETUSER psuser on nopass +@all resetchannels &foo:1 &bar:*')];
      out.push(await cmd(sub, 'AUTH psuser x'));
      out.push(await cmd(sub, 'CLIENT SETNAME deathrow'));
      out.push(await cmd(sub, 'SUBSCRIBE foo:1'));
      out.push(await cmd(sub, 'PSUBSCRIBE bar:*'));
      out.push(await cmd(sub, 'SUBSCRIBE zap:3'));
      out.push(await cmd(admin, 'ACL SETUSER psuser &zap:*'));
      out.push(/name=deathrow .* user=psuser /.test(await cmd(admin, 'CLIENT LIST'))
        ? 'listed' : 'not listed');
      out.push(await cmd(admin, 'ACL SETUSER psuser resetchannels &foo:1'));
      out.push(/deathrow/.test(await cmd(admin, 'CLIENT LIST')) ? 'listed' : 'not listed');
      out.push(await until(() => sub.closed) ? 'closed' : 'open');
      out.push(await cmd(admin, 'ACL DELUSER psuser'));
      admin.close();
      return out;
    });
    assert.deepEqual(g, r);
    assert.equal(g[7], 'listed');
    assert.equal(g[9], 'not listed');
  });

  it('EXEC checks the queued commands against the rules as they are then', async () => {
    const [g, r] = await both(servers, async ({ port }) => {
      const admin = await open(port);
      const c = await open(port);
      const out = [await cmd(admin, 'ACL SETUSER antirez on >foo +multi +exec +incr +get ~object:*')];
      for (const line of ['AUTH antirez foo', 'MULTI', 'INCR object:1', 'GET object:1'])
        out.push(await cmd(c, line));
      out.push(await cmd(admin, 'ACL SETUSER antirez -incr'));
      out.push(await cmd(c, 'EXEC'));
      for (const line of ['MULTI', 'GET object:1', 'INCR object:1'])
        out.push(await cmd(c, line));
      out.push(await cmd(c, 'EXEC'));
      out.push(await cmd(admin, 'ACL DELUSER antirez'));
      admin.close();
      return out;
    });
    assert.deepEqual(g, r);
  });

  it('the ACL log has the same entries, times and clients aside', async () => {
    const mask = (s) => s.replace(/age-seconds\r\n\$\d+\r\n[0-9.e+-]+\r\n/g, 'age-seconds\r\nT\r\n')
      .replace(/\$\d+\r\nid=\d+ addr=127\.0\.0\.1:\d+ laddr=127\.0\.0\.1:\d+ fd=\d+ /g, 'CLIENT ')
      .replace(/ age=\d+ idle=\d+ /g, ' ')
      .replace(/ (qbuf|qbuf-free|argv-mem|multi-mem|rbs|rbp|obl|oll|omem|tot-mem)=\d+/g, '');
    const [g, r] = await both(servers, async ({ port }) => {
      const admin = await open(port);
      const c = await open(port);
      await cmd(admin, 'ACL LOG RESET');
      await cmd(admin, 'ACL SETUSER logged on >pw +set +eval +multi +exec ~object:1234 resetchannels +publish');
      for (const line of ['AUTH logged pw', 'GET foo', 'GET foo', 'SET somekey 1',
        'PUBLISH somechannel m', 'MULTI', 'INCR foo', 'EXEC',
        'EVAL "redis.call(\'incr\',\'foo\')" 0', 'AUTH logged wrong'])
        await cmd(c, line);
      const out = [mask(await cmd(admin, 'ACL LOG'))];
      out.push(await cmd(admin, 'ACL LOG RESET'));
      out.push(await cmd(admin, 'ACL DELUSER logged'));
      admin.close();
      return out;
    });
    assert.deepEqual(g, r);
    assert.match(g[0], /^\*6\r\n\*14\r\n\$5\r\ncount\r\n:1\r\n\$6\r\nreason\r\n\$4\r\nauth\r\n/);
  });

  it('ACL SAVE writes the aclfile and ACL LOAD reads it back, closing the old users\' connections', async () => {
    const [g, r] = await both(servers, async ({ port, dir }) => {
      const c = await open(port);
      const out = [];
      for (const line of ['AUTH bob bob', 'SADD set 1 2 3', 'SET key value',
        'AUTH alice alice', 'SET key value', 'ACL SETUSER eve +get allkeys >eve on', 'ACL SAVE'])
        out.push(await cmd(c, line));
      out.push(readFileSync(join(dir, 'users.acl'), 'latin1'));
      out.push(await cmd(c, 'ACL LOAD'));
      out.push(await until(() => c.closed) ? 'closed' : 'open');
      const d = await open(port);
      for (const line of ['AUTH eve eve', 'GET key', 'SET key v', 'AUTH default x', 'ACL USERS'])
        out.push(await cmd(d, line));
      writeFileSync(join(dir, 'users.acl'), 'user alice on nopass ~* +@all\nuser alice off\n');
      out.push(await cmd(d, 'ACL LOAD'));
      out.push(await cmd(d, 'ACL USERS'));
      d.close();
      return out;
    });
    assert.deepEqual(g, r);
    assert.equal(g[9], 'closed');
  });
});
