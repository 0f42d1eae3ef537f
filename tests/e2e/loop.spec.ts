import { test } from '@playwright/test';
import { SandboxPage, expect } from './pages/sandbox';
import { LoopPane, iterationsOf } from './pages/loop';

test.describe('the event-loop pane', () => {
  test('a workload runs, steps one iteration at a time, rewinds and comes back to the same world', async ({ page }) => {
    const app = new SandboxPage(page);
    await app.open({ seed: 9, pane: 'loop' });
    const loop = new LoopPane(app);
    await loop.startWorkload('benchmark', { clients: 3, pipeline: 4, requests: 0 });
    await expect(app.byId('wl.row')).toHaveCount(1);
    await loop.play('0.01', 1500);
    const played = await loop.snapshot();
    expect(played.now).toBeGreaterThan(1e6);
    expect(played.workloads[0].stats.completed).toBeGreaterThan(100);

    // One more iteration of the server: the timeline shows it, numbered
    // as the engine counts iterations.
    await app.byId('time.stepIteration').click();
    await loop.settle();
    const stepped = await loop.snapshot();
    expect(stepped.hosts[0].iterations).toBe(played.hosts[0].iterations + 1);
    const shown = await loop.shown();
    expect(shown.mode).toBe('items');
    const numbers = iterationsOf(shown.items.find((l) => l.node === 0), Infinity);
    expect(Math.max(...numbers)).toBe(stepped.hosts[0].iterations - 1);
    const all = await loop.serverIterations(0, stepped.now + 1e6, Infinity);
    expect(all.length).toBe(stepped.hosts[0].iterations);
    expect(all).toEqual(all.map((_, i) => i));
    await app.screenshot('loop-timeline-iteration');

    // Phases of the next iteration, one by one, from the trace.
    await app.byId('time.stepPhase').click();
    await loop.settle();
    const phase = app.byId('loop.phase');
    await expect(phase).toHaveAttribute('data-phase', '1');
    await expect(phase).toHaveAttribute('data-iteration', String(stepped.hosts[0].iterations));
    await app.byId('time.stepPhase').click();
    await expect(phase).toHaveAttribute('data-phase', '2');
    await expect(phase).toContainText(`iteration #${stepped.hosts[0].iterations}`);
    await app.screenshot('loop-phase-step');

    // Hovering explains what is under the pointer.
    await loop.timeline.hover({ position: { x: 400, y: 62 } });
    await expect(app.byId('loop.tip')).toBeVisible();

    // Rewind to the middle of the history with the scrubber.
    const before = await loop.snapshot();
    const box = (await app.byId('history.scrub').boundingBox())!;
    await page.mouse.click(box.x + box.width * 0.5, box.y + box.height / 2);
    await loop.settle();
    await expect(app.byId('history')).toHaveAttribute('data-at-end', 'no');
    const rewound = await loop.snapshot();
    expect(rewound.now).toBeLessThan(before.now * 0.75);
    expect(rewound.now).toBeGreaterThan(before.now * 0.25);
    expect(rewound.history.end).toBe(before.history.end);
    expect(rewound.hosts[0].iterations).toBeLessThan(before.hosts[0].iterations);
    // The world at the rewound time is the one the timeline showed then.
    const upToNow = await loop.serverIterations(0, before.now + 1e6, rewound.now);
    expect(upToNow.length).toBe(rewound.hosts[0].iterations);
    await expect(app.byId('history.text')).toContainText('Rewound');
    await app.screenshot('loop-rewound');

    // Back to the end: the same world as before rewinding.
    await app.byId('history.end').click();
    await loop.settle();
    await expect(app.byId('history')).toHaveAttribute('data-at-end', 'yes');
    const back = await loop.snapshot();
    expect(back.now).toBe(before.now);
    expect(back.hosts).toEqual(before.hosts);
    expect(back.workloads).toEqual(before.workloads);
    expect(back.traceSeq).toBe(before.traceSeq);
    expect(back.logLength).toBe(before.logLength);
    expect(app.errors).toEqual([]);
  });

  test('the timeline draws nothing past now, and a stepped iteration ends by now', async ({ page }) => {
    const app = new SandboxPage(page);
    await app.open({ seed: 9, pane: 'loop' });
    const loop = new LoopPane(app);
    await loop.startWorkload('benchmark', { clients: 8, pipeline: 16, requests: 0 });
    await loop.play('0.01', 1500);
    // Playing stops with the server inside an iteration its own clock has
    // already run to the end: the part after now is not drawn.
    const played = await loop.drawnPastNow();
    expect(played.nowX).toBeGreaterThan(played.width * 0.5);
    expect(played.nowX).toBeLessThan(played.width);
    expect(played.pixels).toBe(0);
    await page.locator('.loop-timeline').screenshot({ path: 'test-results/loop-timeline-at-now.png' });

    // Stepping one iteration of the server runs the world to its end (a
    // nanosecond short, where the server's next wake-up is due): the whole
    // iteration is drawn.
    await app.byId('time.stepIteration').click();
    await loop.settle();
    const snap = await loop.snapshot();
    const lane = (await loop.shown()).items.find((l) => l.node === 0)!;
    let last = -1;
    for (let i = 0; i < lane.count; i++) if (lane.kind[i] === 0 && (last < 0 || lane.t0[i] > lane.t0[last])) last = i;
    expect(lane.x[last]).toBe(snap.hosts[0].iterations - 1);
    expect(lane.t1[last]).toBe(snap.now + 1);
    expect((await loop.drawnPastNow()).pixels).toBe(0);
    await page.locator('.loop-timeline').screenshot({ path: 'test-results/loop-timeline-stepped.png' });
    expect(app.errors).toEqual([]);
  });

  test('a lab runs live part by part and headless as figures; the views show its round trips and latencies', async ({ page }) => {
    const app = new SandboxPage(page);
    await app.open({ seed: 4, pane: 'loop' });
    const loop = new LoopPane(app);
    await app.byId('lab.pipeline-vs-multi.live').click();
    await app.idle();
    await loop.play('0.1', 3500);
    let snap = await loop.snapshot();
    expect(snap.lab).toMatchObject({ name: 'pipeline-vs-multi', part: 1 });
    await loop.play('1', 1500);
    snap = await loop.snapshot();
    expect(snap.workloads.length).toBe(3);
    await app.byId('loop.fit').click();
    await loop.settle();
    await expect(loop.timeline).toHaveAttribute('data-mode', 'bins');
    await app.screenshot('loop-timeline-history');

    await app.byId('lab.pipeline-vs-multi.headless').click();
    const table = app.byId('lab.pipeline-vs-multi.table');
    await expect(table).toBeVisible({ timeout: 60_000 });
    await expect(table.locator('tbody tr')).toHaveCount(2);
    await expect(table).toContainText('MULTI/EXEC batches');
    await app.screenshot('loop-lab-figures');

    await app.byId('seq.conn').scrollIntoViewIfNeeded();
    await expect(app.byId('loop.sequence')).toBeVisible();
    await expect(app.byId('loop.latency')).toHaveAttribute('data-series', '3');
    // Big batches: "latency" brackets close together, a request's label
    // and its reply's a few pixels apart; none is drawn over another.
    const { labels, faults } = await loop.sequenceLabels();
    expect(labels.some((b) => /^\d+ cmd · \d+ KB$/.test(b.text))).toBe(true);
    expect(labels.some((b) => /^latency \d+(\.\d+)? ms$/.test(b.text))).toBe(true);
    expect(faults).toEqual([]);
    await app.screenshot('loop-sequence-and-charts');
    await page.locator('.loop-sequence').screenshot({ path: 'test-results/loop-sequence.png' });
    await page.locator('.loop-clients').screenshot({ path: 'test-results/loop-charts.png' });
    await page.locator('.loop-timeline').screenshot({ path: 'test-results/loop-timeline.png' });
    expect(app.errors).toEqual([]);
  });

  test('the command-flushing lab counts the system calls the batches save, and a Lettuce program flushes after every command unless told not to', async ({ page }) => {
    const app = new SandboxPage(page);
    await app.open({ seed: 4, pane: 'loop' });
    const loop = new LoopPane(app);
    await app.byId('lab.command-flushing.headless').click();
    const table = app.byId('lab.command-flushing.table');
    await expect(table).toBeVisible({ timeout: 60_000 });
    await expect(table.locator('thead')).toContainText('client syscalls/cmd');
    await expect(table.locator('thead')).toContainText('server syscalls/cmd');
    const rows = table.locator('tbody tr');
    await expect(rows).toHaveCount(3);
    await expect(rows.first()).toContainText('flush after every command');
    // Columns: run, cmd/s, client syscalls/cmd, server syscalls/cmd, ...
    const client = async (i: number) => Number(await rows.nth(i).locator('td').nth(2).textContent());
    expect(await client(0)).toBeGreaterThanOrEqual(1);
    expect(await client(1)).toBeLessThan(0.1);
    expect(await client(2)).toBeLessThan(0.01);
    await app.screenshot('labs/loop-command-flushing-figures');

    await app.byId('run.tab.lettuce').click();
    await expect(app.byId('wl.autoFlush')).toBeChecked();
    await loop.startWorkload('lettuce', { requests: 100 });
    await app.byId('wl.autoFlush').uncheck();
    await loop.startWorkload('lettuce', { requests: 100 });
    const snap = await loop.snapshot();
    expect(snap.workloads.map((w) => [w.preset, w.spec.flush])).toEqual([['lettuce', 1], ['lettuce', 0]]);
    expect(app.errors).toEqual([]);
  });

  test('the slow-command lab runs headless only, and its figures show each command on the main thread, the lazy-free thread and the clients\' slowest GET', async ({ page }) => {
    test.setTimeout(180_000);
    const app = new SandboxPage(page);
    await app.open({ seed: 1, pane: 'loop' });
    await expect(app.byId('lab.slow-command')).toContainText('One slow command');
    await expect(app.byId('lab.slow-command.live')).toHaveCount(0);
    await app.byId('lab.slow-command.headless').click();
    const table = app.byId('lab.slow-command.table');
    await expect(table).toBeVisible({ timeout: 120_000 });
    await expect(table.locator('tbody tr')).toHaveCount(6);
    const cell = async (row: number, col: string) => Number(await app.byId(`lab.slow.${row}.${col}`).getAttribute('data-value'));
    // KEYS: one call of 363 ms, in the slow log; every client waits it out.
    await expect(table.locator('tbody tr').nth(0)).toContainText('KEYS *');
    expect(await cell(0, 'main')).toBeGreaterThan(300_000);
    expect(await cell(0, 'slowlog')).toBe(await cell(0, 'main'));
    expect(await cell(0, 'max') * 1000).toBeGreaterThanOrEqual(await cell(0, 'main'));
    // SCAN: a thousand short calls, none logged, nobody waits.
    expect(await cell(1, 'calls')).toBe(1000);
    expect(await cell(1, 'main')).toBeLessThan(1000);
    expect(await cell(1, 'slowlog')).toBe(-1);
    expect(await cell(1, 'max')).toBeLessThan(5);
    // DEL against UNLINK, FLUSHALL against FLUSHALL ASYNC: the same work,
    // on the main thread or on the lazy-free thread.
    for (const [sync, lazy] of [[2, 3], [4, 5]]) {
      expect(await cell(sync, 'main')).toBeGreaterThan(200_000);
      expect(await cell(sync, 'lazy')).toBe(-1);
      expect(await cell(lazy, 'main')).toBeLessThan(100);
      expect(await cell(lazy, 'lazy') * 1000).toBe(await cell(sync, 'main'));
      expect(await cell(lazy, 'max')).toBeLessThan(5);
    }
    await expect(app.byId('lab.slow.0.main')).toHaveText('363 ms');
    await expect(app.byId('lab.slow.3.main')).toHaveText('13 µs');
    await table.scrollIntoViewIfNeeded();
    await app.screenshot('labs/loop-slow-command-figures');
    expect(app.errors).toEqual([]);
  });

  test('the pipelining lesson runs its clients and checks each prediction against the engine', async ({ page }) => {
    const app = new SandboxPage(page);
    await app.open({ seed: 2, pane: 'keys' });
    const { lesson } = app;
    await lesson.open('pipelining');
    await expect(app.byId('loop.pane')).toBeVisible();
    await lesson.answer('0.0', '2');
    await expect(lesson.block('0.0')).toHaveAttribute('data-verdict', 'right');
    await expect(app.byId('wl.row')).toHaveCount(1);
    await lesson.next();
    await lesson.answer('1.0', '1');
    await expect(lesson.block('1.0')).toHaveAttribute('data-verdict', 'wrong');
    await expect(lesson.block('1.0').getByTestId('lesson.predict.result')).toContainText('the engine says 0.125');
    await lesson.next();
    await lesson.answer('2.0', '20001');
    await expect(lesson.block('2.0')).toHaveAttribute('data-verdict', 'right');
    const loop = new LoopPane(app);
    await loop.settle();
    await app.screenshot('loop-lesson-multi');
    await app.byId('lang.ko').click();
    await expect(app.byId('loop.pane')).toContainText('이벤트 루프 타임라인');
    await loop.settle();
    await app.screenshot('loop-lesson-multi-ko');
    expect(app.errors).toEqual([]);
  });
});
