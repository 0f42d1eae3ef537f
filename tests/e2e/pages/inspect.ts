// Page object for the key inspector pane.
import type { Locator } from '@playwright/test';
import type { KeyInspection } from '../../../wasm/protocol';
import type { SandboxPage } from './sandbox';

/** One listpack entry as the pane draws it. */
export interface DrawnEntry {
  index: number;
  enc: string;
  data: string;
  back: string;
  value: string;
}

export class InspectorPane {
  constructor(private readonly app: SandboxPage) {}

  get panel(): Locator {
    return this.app.byId('inspect.panel');
  }

  get header(): Locator {
    return this.app.byId('inspect.header');
  }

  get message(): Locator {
    return this.app.byId('inspect.message');
  }

  get change(): Locator {
    return this.app.byId('inspect.change');
  }

  /** Types a key's name and presses Enter, then waits for the engine. */
  async open(key: string): Promise<void> {
    await this.app.showPane('inspect');
    await this.app.byId('inspect.key').fill(key);
    await this.app.byId('inspect.key').press('Enter');
    await this.app.idle();
  }

  /** How the engine stores key now, as the page's test handle reads it. */
  async reading(key: string): Promise<KeyInspection> {
    const r = await this.app.page.evaluate(async (k) => {
      const ins = await window.glasskv.inspect(k);
      return ins ? { ...ins, bytes: Array.from(ins.bytes) } : null;
    }, key);
    if (!r) throw new Error(`no reading of ${key}`);
    return { ...r, bytes: Uint8Array.from(r.bytes) };
  }

  /** The entries drawn in the listpack at `lp` (a locator of one). */
  async entries(lp: Locator): Promise<DrawnEntry[]> {
    return lp.getByTestId('inspect.lp.entry').evaluateAll((els) => els.map((el) => {
      const text = (id: string) => el.querySelector(`[data-testid="${id}"]`)?.textContent?.trim() ?? '';
      return {
        index: Number((el as HTMLElement).dataset.index),
        enc: text('inspect.lp.enc'), data: text('inspect.lp.data'), back: text('inspect.lp.back'),
        value: text('inspect.lp.value'),
      };
    }));
  }
}
