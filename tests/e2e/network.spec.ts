import { test } from '@playwright/test';
import { LoopPane } from './pages/loop';
import { SandboxPage, expect } from './pages/sandbox';

// The Network pane: a second redis-server started from its form, the
// console pointed at it with the row's Console button (redis-cli's
// CONNECT), REPLICAOF typed there, and the map following the full sync to
// a link that is up, then a write's offset reaching the replica.
test.describe('the Network pane', () => {
  test('starts a replica, follows its sync and its offset, in both languages', async ({ page }) => {
    const app = new SandboxPage(page);
    await app.open({ seed: 5, pane: 'network' });
    await expect(app.byId('net.node.6379')).toBeVisible();
    await expect(app.byId('net.node.6379')).toHaveAttribute('data-link', 'master');

    await expect(app.byId('net.start.port')).toHaveAttribute('placeholder', '6380');
    await app.byId('net.start.go').click();
    await app.idle();
    await expect(app.byId('net.node.6380')).toBeVisible();
    await app.byId('net.start.port').fill('6379');
    await app.byId('net.start.port').press('Enter');
    await app.idle();
    expect(await app.console.lastOutput())
      .toContain('Could not create server TCP listening socket *:6379: bind: Address already in use');

    await app.byId('net.connect.6380').click();
    await app.idle();
    await expect(app.byId('console.prompt')).toHaveText('127.0.0.1:6380>');
    await app.console.run('REPLICAOF 127.0.0.1 6379');
    // diskless sync waits 5 s for more replicas before the RDB goes
    await app.page.evaluate(() => window.glasskv.act({ kind: 'wait', ns: 2e9 }));
    await app.idle();
    await expect(app.byId('net.link.6380')).toBeVisible();
    await app.screenshot('network-wait-bgsave');
    await app.page.evaluate(() => window.glasskv.act({ kind: 'wait', ns: 6e9 }));
    await app.idle();
    await expect(app.byId('net.node.6380')).toHaveAttribute('data-link', 'up');
    await expect(app.byId('net.link.6380')).toHaveAttribute('data-state', 'online');
    await expect(app.byId('net.row.6380')).toContainText('replica of :6379');

    await app.byId('net.connect.6379').click();
    await app.console.run('SET greeting hello');
    await app.page.evaluate(() => window.glasskv.act({ kind: 'wait', ns: 5e6 }));
    await app.idle();
    await expect(app.byId('net.link.6380')).toHaveAttribute('data-behind', '0');
    const offsets = await app.state((s) => s.snapshot!.network.map((n) => [n.port, n.port === 6379 ? n.offset : n.appliedOffset]));
    expect(offsets[0][1]).toBeGreaterThan(0);
    expect(offsets[1][1]).toBe(offsets[0][1]);

    // Under a benchmark's SETs on the master the replica's offset follows,
    // a little behind, and catches up once the load stops.
    await app.page.evaluate(() => window.glasskv.act({
      kind: 'workload', preset: 'benchmark', command: 'SET', clients: 4, requests: 0, keyspace: 100_000,
    }));
    const applied: number[] = [];
    for (let i = 0; i < 3; i++) {
      await app.page.evaluate(() => window.glasskv.act({ kind: 'wait', ns: 10e6 }));
      await app.idle();
      applied.push(await app.state((s) => s.snapshot!.network.find((n) => n.port === 6380)!.appliedOffset));
    }
    expect(applied[1]).toBeGreaterThan(applied[0]);
    expect(applied[2]).toBeGreaterThan(applied[1]);
    await app.screenshot('network-under-load');
    const id = await app.state((s) => s.snapshot!.workloads[0].id);
    await app.page.evaluate((w) => window.glasskv.act({ kind: 'workloadStop', id: w }), id);
    await app.page.evaluate(() => window.glasskv.act({ kind: 'wait', ns: 50e6 }));
    await app.idle();
    await expect(app.byId('net.link.6380')).toHaveAttribute('data-behind', '0');

    // The replica has a lane of its own on the event loop's timeline, busy
    // when it applied the write.
    await app.showPane('loop');
    const loop = new LoopPane(app);
    await loop.settle();
    const replicaNode = await app.state((s) => s.snapshot!.network.find((n) => n.port === 6380)!.node);
    const lane = (await loop.shown()).items.find((l) => l.node === replicaNode);
    expect(lane?.count).toBeGreaterThan(0);
    await app.screenshot('network-replica-lane');
    await app.showPane('network');

    for (const [w, h] of [[1440, 900], [1280, 720], [390, 844]]) {
      await page.setViewportSize({ width: w, height: h });
      await app.screenshot(`network-${w}x${h}-en`);
      await app.expectNoSideScroll();
    }
    await app.byId('lang.ko').click();
    await expect(app.byId('net.row.6380')).toContainText(':6379의 복제');
    for (const [w, h] of [[1440, 900], [1280, 720], [390, 844]]) {
      await page.setViewportSize({ width: w, height: h });
      await app.screenshot(`network-${w}x${h}-ko`);
    }
    expect(app.errors).toEqual([]);
  });

  test('the star lab runs live: ten replicas sync, and the way of each write to every replica is timed', async ({ page }) => {
    const app = new SandboxPage(page);
    await app.open({ seed: 3, pane: 'network' });
    await app.byId('lab.replication-star.live').click();
    await app.idle();
    // ten new servers, each a replica of 6379 still connecting
    await expect(app.byId('net.node.6389')).toBeVisible();
    await expect(app.byId('net.row.6385')).toContainText('replica of :6379');
    await expect(app.byId('net.lab.live')).toHaveAttribute('data-part', '0');
    await expect(app.byId('net.lab.live')).toContainText('the replicas sync');

    // Play at 10x: the sync (5 s of diskless delay), one SET, the load and
    // its MSET, part after part; the map follows the offsets meanwhile.
    await app.byId('time.speed').selectOption('10');
    await app.byId('time.play').click();
    await expect(app.byId('net.node.6380')).toHaveAttribute('data-link', 'up', { timeout: 30_000 });
    await expect(app.byId('net.lab.live')).toHaveAttribute('data-done', 'yes', { timeout: 60_000 });
    await app.byId('time.play').click();
    await app.idle();

    const snap = await app.state((s) => s.snapshot!);
    const [idle, loaded] = snap.lab!.deliveries;
    for (const d of [idle, loaded]) {
      expect(d.replicas).toHaveLength(10);
      for (const r of d.replicas) expect(r.ms).toBeGreaterThan(0);
    }
    expect(snap.network.map((n) => n.masterPort)).toEqual([0, ...Array(10).fill(6379)]);
    const table = app.byId('net.deliveries');
    await expect(table.locator('tbody tr')).toHaveCount(10);
    await expect(table.locator('thead')).toContainText('SET idle, ms');
    await expect(table.locator('thead')).toContainText('MSET under load, ms');
    const row = app.byId('net.delivery.6384');
    await expect(row).toContainText(idle.replicas[4].ms!.toFixed(3));
    await expect(row).toContainText(loaded.replicas[4].ms!.toFixed(3));
    const slowest = Math.max(...loaded.replicas.map((r) => r.ms!));
    await expect(app.byId('net.delivery.max')).toContainText(slowest.toFixed(3));
    await expect(app.byId('net.lab.article')).toContainText('The article (2015');

    await app.byId('lab.replication-star.headless').click();
    const figures = app.byId('net.lab.replication-star.table');
    await expect(figures).toBeVisible({ timeout: 60_000 });
    await expect(figures.locator('tbody tr')).toHaveCount(4);
    await expect(figures).toContainText('loaded-no-monitor');

    await app.byId('net.map').scrollIntoViewIfNeeded();
    await app.screenshot('network-star-map');
    await app.byId('net.labs').scrollIntoViewIfNeeded();
    for (const [w, h] of [[1440, 900], [1280, 720], [390, 844]]) {
      await page.setViewportSize({ width: w, height: h });
      await app.byId('net.lab.live').scrollIntoViewIfNeeded();
      await app.screenshot(`network-star-lab-${w}x${h}-en`);
      await app.expectNoSideScroll();
    }
    await app.byId('lang.ko').click();
    await expect(app.byId('net.deliveries').locator('thead')).toContainText('부하 중 MSET');
    await page.setViewportSize({ width: 1440, height: 900 });
    await app.byId('net.lab.live').scrollIntoViewIfNeeded();
    await app.screenshot('network-star-lab-1440x900-ko');
    expect(app.errors).toEqual([]);
  });

  test('a replica that cannot sync: the failure shown with the log lines of each server', async ({ page }) => {
    const app = new SandboxPage(page);
    await app.open({ seed: 3, pane: 'network' });
    // seed 000's first cause: disk-based sync on a master whose disk is full
    for (const action of [
      { kind: 'config', name: 'repl-diskless-sync', value: 'no' },
      { kind: 'populate', n: 1000, db: 0 },
      { kind: 'diskFree', bytes: 0 },
      { kind: 'server', port: 6380 },
    ] as const) await app.page.evaluate((a) => window.glasskv.act(a), action);
    await app.idle();
    const log = app.byId('net.log.lines');
    await expect(log).toHaveAttribute('data-port', '6379');
    await expect(log).toContainText('* Ready to accept connections');

    await app.byId('net.connect.6380').click();
    await app.console.run('REPLICAOF 127.0.0.1 6379');
    await app.page.evaluate(() => window.glasskv.act({ kind: 'wait', ns: 3e9 }));
    await app.idle();
    // the console went to 6380: its log shows, the retries refused
    await expect(log).toHaveAttribute('data-port', '6380');
    await expect(log).toContainText('* Connecting to MASTER 127.0.0.1:6379');
    await expect(log.locator('.warn', { hasText: "Error reply to PING from master: '-MISCONF" }).first()).toBeVisible();
    await expect(app.byId('net.node.6380')).not.toHaveAttribute('data-link', 'up');
    await app.byId('net.log').scrollIntoViewIfNeeded();
    await app.screenshot('network-log-replica');

    await app.byId('net.log.port').selectOption('6379');
    await expect(log).toHaveAttribute('data-port', '6379');
    for (const line of [
      '# Write error saving DB on disk(rdbSaveRio): No space left on device',
      '# SYNC failed. BGSAVE child returned an error',
      '# Connection with replica 127.0.0.1:6380 lost.',
    ]) await expect(log).toContainText(line);
    await expect(log.locator('.warn', { hasText: 'SYNC failed' })).toHaveCount(1);
    // the newest line is in view at the bottom of the log
    const atBottom = await log.evaluate((el) => Math.abs(el.scrollHeight - el.clientHeight - el.scrollTop) < 2);
    expect(atBottom).toBe(true);
    for (const [w, h] of [[1440, 900], [390, 844]]) {
      await page.setViewportSize({ width: w, height: h });
      await app.byId('net.log').scrollIntoViewIfNeeded();
      await app.screenshot(`network-log-${w}x${h}-en`);
      await app.expectNoSideScroll();
    }
    await app.byId('lang.ko').click();
    await expect(app.byId('net.log')).toContainText('서버 로그');
    await app.byId('net.log').scrollIntoViewIfNeeded();
    await app.screenshot('network-log-390x844-ko');
    expect(app.errors).toEqual([]);
  });
});
