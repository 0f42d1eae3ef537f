// Page object of the Slabs pane (memcached), over its dotted test ids.
import { expect, type Locator } from '@playwright/test';
import type { SandboxPage } from './sandbox';

export class SlabsPane {
  constructor(private readonly app: SandboxPage) {}

  async show(): Promise<void> {
    await this.app.byId('views.tab.slabs').click();
    await expect(this.panel).toBeVisible();
  }

  get panel(): Locator {
    return this.app.byId('slabs.panel');
  }

  get input(): Locator {
    return this.app.byId('slabs.input');
  }

  /** Types one protocol line and sends it with Enter. */
  async send(line: string): Promise<void> {
    await this.input.fill(line);
    await this.input.press('Enter');
    await this.app.idle();
  }

  /** The raw reply of the last exchange (line ends shown as \r\n). */
  get lastReply(): Locator {
    return this.app.byId('slabs.reply').last();
  }

  row(cls: number): Locator {
    return this.app.byId(`slabs.class.${cls}`);
  }

  async selectClass(cls: number): Promise<void> {
    await this.row(cls).getByRole('button').click();
    await expect(this.app.byId('slabs.pages')).toHaveAttribute('data-cls', String(cls));
  }

  /** The class marked as where the typed item lands (0: too large). */
  async landing(): Promise<number> {
    return Number(await this.app.byId('slabs.landing').getAttribute('data-cls'));
  }

  /** A screenshot of the whole pane: the viewport is made tall enough
   *  for it, then set back. */
  async screenshot(name: string): Promise<void> {
    const page = this.panel.page();
    const before = page.viewportSize()!;
    const h = await this.panel.evaluate((el) => el.scrollHeight + 200);
    await page.setViewportSize({ width: before.width, height: Math.max(before.height, h) });
    await page.screenshot({ path: `test-results/${name}.png`, fullPage: true });
    await page.setViewportSize(before);
  }

  slider(name: 'f' | 'n' | 'I' | 'm'): Locator {
    return this.app.byId(`slabs.${name}`);
  }

  /** Classes the what-if layout shows for the sliders' options. */
  async whatIfClasses(): Promise<number> {
    return Number(await this.app.byId('slabs.whatif.result').getAttribute('data-classes'));
  }

  async tableClasses(): Promise<number> {
    return Number(await this.app.byId('slabs.classes').getAttribute('data-classes'));
  }
}
