// Page objects for the sandbox page, over its stable dotted test ids and
// its typed test handle (window.glasskv).
import { expect, type Locator, type Page } from '@playwright/test';
import type { TestHandle } from '../../../web/src/app/testHandle';
import { LessonPane } from './lesson';
import type { AppState } from '../../../web/src/model/store';
import type { Pane } from '../../../web/src/app/pane';

declare global {
  interface Window {
    glasskv: TestHandle;
  }
}

export class SandboxPage {
  readonly console: ConsolePane;
  readonly table: HashTablePane;
  readonly scan: ScanPane;
  readonly lesson: LessonPane;
  /** Console errors and uncaught exceptions seen on the page. */
  readonly errors: string[] = [];

  constructor(readonly page: Page) {
    this.console = new ConsolePane(this);
    this.table = new HashTablePane(this);
    this.scan = new ScanPane(this);
    this.lesson = new LessonPane(this);
    page.on('console', (m) => {
      if (m.type() === 'error') this.errors.push(m.text());
    });
    page.on('pageerror', (e) => this.errors.push(e.message));
  }

  /** Opens a fresh session with a fixed seed (or the saved one with
   *  fresh=false), showing `pane` in the views column. */
  async open({ fresh = true, seed = 7, pane = 'keys' }: {
    fresh?: boolean; seed?: number; pane?: Pane;
  } = {}): Promise<void> {
    await this.page.goto(fresh ? `./?fresh&seed=${seed}` : './');
    await this.waitReady();
    await this.showPane(pane);
  }

  /** Selects a tab of the views column (the choice survives reloads). */
  async showPane(pane: Pane): Promise<void> {
    const tab = this.byId(`views.tab.${pane}`);
    if (await tab.count() && (await tab.getAttribute('aria-selected')) !== 'true') await tab.click();
  }

  async waitReady(): Promise<void> {
    await this.page.waitForFunction(() => window.glasskv?.state().phase === 'ready');
  }

  /** Waits until no request to the engine is in flight. */
  async idle(): Promise<void> {
    await this.page.evaluate(() => window.glasskv.idle());
  }

  async state<T>(pick: (s: AppState) => T): Promise<T> {
    const s = await this.page.evaluate(() => {
      const { snapshot, log, phase, console: transcript } = window.glasskv.state();
      return { snapshot: snapshot && { ...snapshot, dict: null }, log, phase, console: transcript } as unknown as AppState;
    });
    return pick(s);
  }

  async screenshot(name: string): Promise<void> {
    await this.page.screenshot({ path: `test-results/${name}.png` });
  }

  byId(id: string): Locator {
    return this.page.getByTestId(id);
  }

  /** The page does not scroll sideways: nothing reaches past the screen's
   *  right edge, except inside a box that scrolls sideways on its own and
   *  itself fits (a wide table in its scroll box: all of it can be
   *  reached). Content a box clips away counts as past the edge. */
  async expectNoSideScroll(): Promise<void> {
    const { scroll, width, wide } = await this.page.evaluate(() => {
      const w = document.documentElement.clientWidth;
      const inBox = (e: HTMLElement): boolean => {
        for (let p = e.parentElement; p && p !== document.body; p = p.parentElement) {
          const o = getComputedStyle(p).overflowX;
          if (o === 'auto' || o === 'scroll') return p.getBoundingClientRect().right <= w + 1;
        }
        return false;
      };
      const wide = [...document.querySelectorAll<HTMLElement>('body *')]
        .filter((e) => e.getBoundingClientRect().right > w + 1 && getComputedStyle(e).position !== 'fixed')
        .filter((e) => !e.closest('.transcript, .strip-box, canvas, .sr-only') && !inBox(e))
        .slice(0, 5).map((e) => `${e.tagName.toLowerCase()}.${e.className} in ${e.parentElement?.className} ${e.dataset.testid ?? ''} ${Math.round(e.getBoundingClientRect().right)}`);
      return { scroll: document.documentElement.scrollWidth, width: w, wide };
    });
    expect(wide).toEqual([]);
    expect(scroll).toBeLessThanOrEqual(width);
  }
}

export class ConsolePane {
  constructor(private readonly app: SandboxPage) {}

  get input(): Locator {
    return this.app.byId('console.input');
  }

  get entries(): Locator {
    return this.app.byId('console.entry');
  }

  get prompt(): Locator {
    return this.app.byId('console.prompt');
  }

  /** Types text (lines separated by \n) and presses Enter. */
  async run(text: string): Promise<void> {
    await this.input.fill(text);
    await this.input.press('Enter');
    await this.app.idle();
  }

  /** Runs one command and returns the output the console printed for it. */
  async reply(command: string): Promise<string> {
    await this.run(command);
    return this.lastOutput();
  }

  async lastOutput(): Promise<string> {
    return (await this.entries.last().getByTestId('console.output').textContent()) ?? '';
  }
}

export class HashTablePane {
  constructor(private readonly app: SandboxPage) {}

  async add(n: number): Promise<void> {
    await this.app.byId('ht.add.count').selectOption(String(n));
    await this.app.byId('ht.add').click();
    await this.app.idle();
  }

  async remove(n: number): Promise<void> {
    await this.app.byId('ht.delete.count').selectOption(String(n));
    await this.app.byId('ht.delete').click();
    await this.app.idle();
  }

  async keys(): Promise<number> {
    return Number(((await this.app.byId('ht.keys').textContent()) ?? '').replace(/,/g, ''));
  }

  table(i: 0 | 1): Locator {
    return this.app.byId(`ht.table.${i}`);
  }
}

export class ScanPane {
  constructor(private readonly app: SandboxPage) {}

  async start(count: number, match = '*'): Promise<void> {
    await this.app.byId('scan.count').fill(String(count));
    await this.app.byId('scan.match').fill(match);
    await this.app.byId('scan.start').click();
    await this.app.idle();
  }

  async step(): Promise<void> {
    await this.app.byId('scan.step').click();
    await this.app.idle();
  }

  async finish(): Promise<void> {
    await this.app.byId('scan.finish').click();
    await expect(this.app.byId('scan.done')).toBeVisible({ timeout: 60_000 });
    await this.app.idle();
  }

  get checker(): Locator {
    return this.app.byId('scan.checker');
  }

  get cursor(): Locator {
    return this.app.byId('scan.cursor');
  }
}

export { expect };
