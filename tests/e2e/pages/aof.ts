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
}
