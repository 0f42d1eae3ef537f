import { test } from '@playwright/test';
import { AofPane } from './pages/aof';
import { SandboxPage, expect } from './pages/sandbox';

test.describe('the AOF panel', () => {
  test('under appendfsync always a power loss keeps every acknowledged write; under no it loses them', async ({ page }) => {
    const app = new SandboxPage(page);
    const aof = new AofPane(app);
    await app.open({ seed: 3 });
    await aof.show();
    await aof.enable();
    await app.console.run('SET warmup 1');
    await aof.policy('always');
    await app.console.run('SET user:1 alice\nSET user:2 bob\nINCR visits\nINCR visits');
    await expect(app.byId('aof.cmd.durable').first()).toBeVisible();
    await expect(app.byId('aof.thread.bio_aof_fsync')).toBeVisible();
    await app.screenshot('aof-always-before-crash');

    await aof.crash('power');
    await app.console.run('GET user:1');
    expect(await app.console.lastOutput()).toBe('Could not connect to Redis at 127.0.0.1:6379: Connection refused');
    await aof.restart();
    await expect(aof.summary).toContainText('4 of 4');
    await expect(aof.rows('lost')).toHaveCount(0);
    await expect(app.byId('aof.report.explain')).toContainText('appendfsync always');
    await app.screenshot('aof-always-report');
    expect(await app.console.reply('GET user:1')).toBe('"alice"');

    await aof.policy('no');
    await app.console.run('SET order:1 paid\nSET order:2 shipped');
    await expect(app.byId('aof.cmd.written').first()).toBeVisible();
    await app.screenshot('aof-no-before-crash');
    await aof.panel.screenshot({ path: 'test-results/aof-panel-no-before-crash.png' });
    await aof.crash('power');
    await aof.restart();
    await expect(aof.rows('lost')).toHaveCount(2);
    await expect(app.byId('aof.report.explain')).toContainText('appendfsync no');
    await app.screenshot('aof-no-report');
    await aof.panel.screenshot({ path: 'test-results/aof-panel-no-report.png' });
    expect(app.errors).toEqual([]);
  });
});
