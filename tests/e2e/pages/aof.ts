// Page object of the AOF panel, over its dotted test ids.
import { expect, type Locator } from '@playwright/test';
import type { SandboxPage } from './sandbox';

export class AofPane {
  constructor(private readonly app: SandboxPage) {}

  /** Shows the AOF pane of the views column. */
  async show(): Promise<void> {
    await this.app.byId('views.tab.aof').click();
    await expect(this.panel).toBeVisible();
  }

  get panel(): Locator {
    return this.app.byId('aof.panel');
  }

  /** The checkbox follows the engine's appendonly, so it turns on only
   *  once the next view arrives: click, then wait for it. */
  async enable(): Promise<void> {
    await this.app.byId('aof.appendonly').click();
    await this.app.idle();
    await expect(this.app.byId('aof.appendonly')).toBeChecked();
  }

  async policy(p: 'always' | 'everysec' | 'no'): Promise<void> {
    await this.app.byId('aof.fsync').selectOption(p);
    await this.app.idle();
    await expect(this.app.byId('aof.fsync')).toHaveValue(p);
  }

  async crash(mode: 'process' | 'power'): Promise<void> {
    await this.app.byId(`aof.crash.${mode}`).click();
    await expect(this.app.byId('aof.down')).toBeVisible();
  }

  async restart(): Promise<void> {
    await this.app.byId('aof.restart').click();
    await expect(this.app.byId('aof.report')).toBeVisible();
  }

  get summary(): Locator {
    return this.app.byId('aof.report.summary');
  }

  rows(outcome: 'kept' | 'lost' | 'older'): Locator {
    return this.app.byId(`aof.report.row.${outcome}`);
  }

  async disk(preset: 'nvme' | 'ssd' | 'hdd' | 'slow-fsync'): Promise<void> {
    await this.app.byId('aof.disk').selectOption(preset);
    await this.app.idle();
    await expect(this.app.byId('aof.disk')).toHaveValue(preset);
  }

  /** Runs virtual time forward by ns (a logged wait, through the test handle). */
  async wait(ns: number): Promise<void> {
    await this.app.page.evaluate((n) => window.glasskv.act({ kind: 'wait', ns: n }), ns);
    await this.app.idle();
  }

  /** Runs virtual time until the AOF is on (its first rewrite done:
   *  gkAofGetInfo's state 1), a second at a time. */
  async waitOn(): Promise<void> {
    for (let i = 0; i < 30 && (await this.panel.getAttribute('data-aof-state')) !== '1'; i++) await this.wait(1e9);
    await expect(this.panel).toHaveAttribute('data-aof-state', '1');
  }

  /** Arms a crash at a point of the picker. */
  async crashAt(point: 'beforeSleep' | 'afterWrite' | 'duringFsync', mode: 'process' | 'power'): Promise<void> {
    await this.app.byId('aof.crashAt.point').selectOption(point);
    await this.app.byId('aof.crashAt.mode').selectOption(mode);
    await this.app.byId('aof.crashAt.arm').click();
    await expect(this.app.byId('aof.crashAt.armed')).toBeVisible();
  }

  /** Runs a lab headless and waits for its table. */
  async runLab(name: 'aof-not-a-wal' | 'fsync-policies' | 'disk-full'): Promise<Locator> {
    await this.app.byId(`aof.lab.${name}.run`).click();
    const table = this.app.byId(`aof.lab.${name}.table`);
    await expect(table).toBeVisible();
    return table;
  }
}
