// The key inspector in Chromium: a list growing a second quicklist node
// past list-max-listpack-size, a zset turning into a skiplist at its 129th
// member, the bytes drawn checked against the engine's reading, a missing
// key, a key opened from the hash table's buckets, a key followed while
// time plays, and a shared link. Screenshots go to test-results/inspect/.
import AxeBuilder from '@axe-core/playwright';
import { test, type Locator, type Page } from '@playwright/test';
import { KeyPart } from '../../web/src/wasm-gen/seam';
import type { KeyInspection } from '../../wasm/protocol';
import { InspectorPane, type DrawnEntry } from './pages/inspect';
import { SandboxPage, expect } from './pages/sandbox';
import { SCREENS, phone, settle } from './pages/screen';

async function shot(page: Page, name: string): Promise<void> {
  await settle(page);
  await page.screenshot({ path: `test-results/inspect/${name}.png` });
}

const hex = (b: Uint8Array) => Array.from(b, (c) => c.toString(16).padStart(2, '0').toUpperCase()).join(' ');

/** What the pane should draw for the entries of the listpack part `lp`,
 *  worked out from the engine's reading alone. */
function expectedEntries(r: KeyInspection, lp: number): Omit<DrawnEntry, 'value'>[] {
  return r.parts.filter((p) => p.kind === KeyPart.LP_ENTRY && p.parent === lp).map((p, index) => ({
    index,
    enc: hex(r.bytes.subarray(p.offset, p.offset + p.b)),
    data: p.c ? hex(r.bytes.subarray(p.offset + p.b, p.offset + p.b + p.c)) : '',
    back: hex(r.bytes.subarray(p.offset + p.b + p.c, p.offset + p.size)),
  }));
}

/** The listpacks of a list's quicklist nodes, in node order. */
function nodeListpacks(r: KeyInspection): number[] {
  return r.parts.flatMap((p, i) => (p.kind === KeyPart.LISTPACK ? [i] : []));
}

/** Scrolls the page until el sits just under the header, which stays at
 *  the top of a phone's screen. */
async function below(el: Locator): Promise<void> {
  await el.evaluate((e) => {
    const head = document.querySelector('.header')?.getBoundingClientRect().height ?? 0;
    window.scrollBy(0, e.getBoundingClientRect().top - head - 8);
  });
}

async function axe(page: Page, label: string): Promise<string[]> {
  const result = await new AxeBuilder({ page }).include('[data-testid="inspect.panel"]')
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${label}: ${v.id} ${v.help} — ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`);
}

async function checkEntries(inspector: InspectorPane, lp: Locator, r: KeyInspection, part: number): Promise<void> {
  const drawn = await inspector.entries(lp);
  expect(drawn.map(({ value: _, ...e }) => e)).toEqual(expectedEntries(r, part));
}

test.describe('the key inspector', () => {
  for (const [lang, size, viewport, split] of [
    ['en', '1440x900', SCREENS.laptop, 'quicklist: 1 → 2 nodes. A node holds at most 4 entries (list-max-listpack-size 4'],
    ['ko', '1280x720', SCREENS.projector, 'quicklist: 노드 1개 → 2개. 노드 하나에는 항목이 최대 4개 들어갑니다(list-max-listpack-size 4'],
  ] as const) {
    test(`a list past list-max-listpack-size 4 gets a second node, and every byte drawn is the engine's (${size}, ${lang})`, async ({ page }) => {
      const app = new SandboxPage(page);
      const inspector = new InspectorPane(app);
      await page.setViewportSize(viewport);
      await app.open({ seed: 5, pane: 'inspect' });
      await app.byId(`lang.${lang}`).click();
      await app.console.run('CONFIG SET list-max-listpack-size 4');
      await app.console.run('RPUSH mylist hello 42 -7 1000');
      await inspector.open('mylist');
      await expect(inspector.header).toHaveAttribute('data-encoding', 'quicklist');
      await expect(app.byId('inspect.ql')).toHaveAttribute('data-nodes', '1');
      await expect(app.byId('inspect.ql')).toHaveAttribute('data-fill', '4');
      await expect(inspector.header).toContainText('list-max-listpack-size 4');
      let r = await inspector.reading('mylist');
      const lps = app.byId('inspect.lp');
      await expect(lps).toHaveCount(1);
      await checkEntries(inspector, lps.first(), r, nodeListpacks(r)[0]);
      expect((await inspector.entries(lps.first())).map((e) => e.value)).toEqual(['"hello"', '42', '-7', '1000']);
      // The 6-byte header: total bytes and count, little-endian.
      const lp = r.parts[nodeListpacks(r)[0]];
      await expect(lps.first().getByTestId('inspect.lp.header.total')).toHaveText(hex(r.bytes.subarray(lp.offset, lp.offset + 4)));
      await expect(lps.first().getByTestId('inspect.lp.header.count')).toHaveText('04 00');
      await expect(lps.first().getByTestId('inspect.lp.end')).toContainText('FF');
      await expect(inspector.change).toHaveCount(0);
      await shot(page, `list-one-node-${size}-${lang}`);

      await app.console.run('RPUSH mylist world');
      await expect(app.byId('inspect.ql')).toHaveAttribute('data-nodes', '2');
      await expect(app.byId('inspect.ql.node')).toHaveCount(2);
      await expect(app.byId('inspect.ql.node').nth(0)).toHaveAttribute('data-count', '4');
      await expect(app.byId('inspect.ql.node').nth(1)).toHaveAttribute('data-count', '1');
      await expect(inspector.change).toHaveAttribute('data-kind', 'nodes');
      await expect(inspector.change).toContainText(split);
      r = await inspector.reading('mylist');
      await expect(lps).toHaveCount(2);
      for (let i = 0; i < 2; i++) await checkEntries(inspector, lps.nth(i), r, nodeListpacks(r)[i]);
      expect((await inspector.entries(lps.nth(1))).map((e) => e.value)).toEqual(['"world"']);
      await expect(inspector.header).toHaveAttribute('data-memory', String(r.info.memoryUsage));
      await app.console.run('MEMORY USAGE mylist SAMPLES 0');
      await expect(app.console.entries.last()).toContainText(`(integer) ${r.info.memoryUsage}`);
      // A node closes to its card and opens again.
      await app.byId('inspect.ql.node').nth(0).getByRole('button').click();
      await expect(lps).toHaveCount(1);
      await app.byId('inspect.ql.node').nth(0).getByRole('button').click();
      await expect(lps).toHaveCount(2);
      expect(await axe(page, `list ${lang}`)).toEqual([]);
      await shot(page, `list-two-nodes-${size}-${lang}`);
      expect(app.errors).toEqual([]);
    });
  }

  for (const [lang, size, viewport, nth] of [
    ['en', '1440x900', SCREENS.laptop, 'the 129th member crossed zset-max-listpack-entries 128'],
    ['ko', '1280x720', SCREENS.projector, '129번째 멤버가 zset-max-listpack-entries 128을 넘었습니다'],
  ] as const) {
    test(`a zset at its 129th member turns from a listpack into a skiplist, and says why (${size}, ${lang})`, async ({ page }) => {
      const app = new SandboxPage(page);
      const inspector = new InspectorPane(app);
      await page.setViewportSize(viewport);
      await app.open({ seed: 5, pane: 'inspect' });
      await app.byId(`lang.${lang}`).click();
      await app.console.run(`ZADD z ${Array.from({ length: 128 }, (_, i) => `${i} m${i}`).join(' ')}`);
      await inspector.open('z');
      await expect(inspector.header).toHaveAttribute('data-encoding', 'listpack');
      await expect(inspector.header).toHaveAttribute('data-length', '128');
      const lp = app.byId('inspect.lp');
      await expect(lp).toHaveAttribute('data-length', '256');
      // A member, then its score; the first 48 entries drawn, the rest counted.
      await expect(lp.getByTestId('inspect.lp.pair')).toHaveCount(24);
      await expect(lp.getByTestId('inspect.lp.more')).toHaveAttribute('data-left', '208');
      const r = await inspector.reading('z');
      const drawn = await inspector.entries(lp);
      expect(drawn.map(({ value: _, ...e }) => e)).toEqual(expectedEntries(r, 0).slice(0, 48));
      expect(drawn.slice(0, 4).map((e) => e.value)).toEqual(['"m0"', '0', '"m1"', '1']);
      await shot(page, `zset-listpack-${size}-${lang}`);

      await app.console.run('ZADD z 128 m128');
      await expect(inspector.header).toHaveAttribute('data-encoding', 'skiplist');
      await expect(inspector.change).toHaveAttribute('data-kind', 'entries');
      await expect(inspector.change).toContainText(`listpack → skiplist: ${nth}`);
      const sl = app.byId('inspect.sl');
      await expect(sl).toHaveAttribute('data-length', '129');
      const nodes = sl.getByTestId('inspect.sl.node');
      await expect(nodes).toHaveCount(24);
      await expect(nodes.first()).toHaveAttribute('data-member', 'm0');
      await expect(nodes.nth(23)).toHaveAttribute('data-member', 'm23');
      // Every node's tower: as many boxes as the engine gave it levels,
      // each holding the span the engine reports.
      const after = await inspector.reading('z');
      const engineNodes = after.parts.map((p, i) => ({ p, i })).filter(({ p }) => p.kind === KeyPart.SL_NODE).slice(0, 24);
      for (const [col, { p, i }] of engineNodes.entries()) {
        const spans = after.parts.filter((q) => q.kind === KeyPart.SL_LEVEL && q.parent === i).map((q) => String(q.value));
        await expect(nodes.nth(col)).toHaveAttribute('data-height', String(p.a));
        const boxes = sl.locator(`[data-testid="inspect.sl.box"][data-col="${col + 1}"]`);
        expect(await boxes.evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.span)).then((s) => s.sort())).toEqual(spans.sort());
      }
      await expect(sl.getByTestId('inspect.sl.dict')).toBeVisible();
      expect(await axe(page, `zset ${lang}`)).toEqual([]);
      await shot(page, `zset-skiplist-${size}-${lang}`);
      expect(app.errors).toEqual([]);
    });
  }

  test('a set past set-max-intset-entries and a hash past hash-max-listpack-entries become hashtables, drawn by bucket (1280x720, en)', async ({ page }) => {
    const app = new SandboxPage(page);
    const inspector = new InspectorPane(app);
    await page.setViewportSize(SCREENS.projector);
    await app.open({ seed: 5, pane: 'inspect' });
    await app.console.run(`SADD s ${Array.from({ length: 512 }, (_, i) => i * 3).join(' ')}`);
    await inspector.open('s');
    await expect(inspector.header).toHaveAttribute('data-encoding', 'intset');
    await expect(app.byId('inspect.intset')).toHaveAttribute('data-width', '2');
    await expect(app.byId('inspect.intset.elem').nth(2)).toHaveAttribute('data-value', '6');
    await app.console.run('SADD s 5000');
    await expect(inspector.header).toHaveAttribute('data-encoding', 'hashtable');
    await expect(inspector.change).toContainText('intset → hashtable: the 513th member crossed set-max-intset-entries 512');
    await expect(app.byId('inspect.dict')).toHaveAttribute('data-entries', '513');
    await expect(app.byId('inspect.ht.hist.0')).toBeVisible();
    await shot(page, 'set-hashtable-1280x720-en');

    await app.console.run('CONFIG SET hash-max-listpack-entries 4');
    await app.console.run('HSET h a 1 b 2 c 3 d 4');
    await inspector.open('h');
    await expect(inspector.header).toHaveAttribute('data-encoding', 'listpack');
    await app.console.run('HSET h e 5');
    await expect(inspector.change).toContainText('listpack → hashtable: the 5th field crossed hash-max-listpack-entries 4');
    const r = await inspector.reading('h');
    const chains = r.parts.filter((p) => p.kind === KeyPart.BUCKET);
    const cells = app.byId('inspect.ht.cells.0').locator('li');
    const size = 2 ** r.parts.find((p) => p.kind === KeyPart.DICT)!.a;
    await expect(cells).toHaveCount(size);
    for (const b of chains.filter((c) => c.a === 0)) await expect(cells.nth(b.value)).toHaveAttribute('data-chain', String(b.b));
    expect(await cells.evaluateAll((els) => els.reduce((n, e) => n + Number((e as HTMLElement).dataset.chain), 0))).toBe(
      chains.filter((c) => c.a === 0).reduce((n, c) => n + c.b, 0));
    expect(await axe(page, 'hashtable')).toEqual([]);
    await shot(page, 'hash-hashtable-1280x720-en');
    expect(app.errors).toEqual([]);
  });

  for (const lang of ['en', 'ko'] as const) {
    test(`an empty name and a missing key get a message, and the key shows once it is made (${lang})`, async ({ page }) => {
      const app = new SandboxPage(page);
      const inspector = new InspectorPane(app);
      await app.open({ seed: 5, pane: 'inspect' });
      await app.byId(`lang.${lang}`).click();
      await expect(inspector.message).toHaveAttribute('data-state', 'none');
      await app.byId('inspect.key').fill('');
      await app.byId('inspect.go').click();
      await expect(app.byId('inspect.emptyName')).toHaveText(lang === 'en' ? 'Type a key name first.' : '먼저 키 이름을 입력하세요.');
      await inspector.open('nosuchkey');
      await expect(app.byId('inspect.emptyName')).toHaveCount(0);
      await expect(inspector.message).toHaveAttribute('data-state', 'missing');
      await expect(inspector.message).toContainText(lang === 'en' ? 'No key named “nosuchkey” in db 0' : 'db 0에 “nosuchkey”라는 키가 없습니다');
      await expect(inspector.header).toHaveCount(0);
      await app.console.run('SADD nosuchkey 1 2 3');
      await expect(inspector.header).toHaveAttribute('data-encoding', 'intset');
      await expect(app.byId('inspect.intset.elem')).toHaveCount(3);
      await expect(inspector.message).toHaveCount(0);
      expect(app.errors).toEqual([]);
    });
  }

  test('a string says how many bytes its blocks take in jemalloc: one 32-byte block for a 5-byte embstr, a 64-byte sds beside the object for 45 raw bytes', async ({ page }) => {
    const app = new SandboxPage(page);
    const inspector = new InspectorPane(app);
    await app.open({ seed: 5, pane: 'inspect' });
    await app.console.run('SET short hello');
    await inspector.open('short');
    const note = app.byId('inspect.string').locator('.inspect-note').first();
    await expect(app.byId('inspect.string')).toHaveAttribute('data-encoding', 'embstr');
    await expect(note).toContainText('share one allocation');
    await expect(note).toContainText('here 32 B in jemalloc');
    await expect(note).not.toContainText('two blocks');
    await shot(page, 'string-embstr-1440x900-en');
    await app.console.run(`SET long ${'x'.repeat(45)}`);
    await inspector.open('long');
    await expect(app.byId('inspect.string')).toHaveAttribute('data-encoding', 'raw');
    await expect(note).toContainText('separate sds allocation of 64 B');
    await shot(page, 'string-raw-1440x900-en');
    expect(app.errors).toEqual([]);
  });

  test('a key clicked in a pinned bucket of the hash table opens in the inspector', async ({ page }) => {
    const app = new SandboxPage(page);
    const inspector = new InspectorPane(app);
    await app.open({ seed: 5, pane: 'keys' });
    await app.console.run('HSET user:1 name alice');
    const strip = app.byId('ht.strip.0');
    const box = (await strip.boundingBox())!;
    const size = Number(await app.table.table(0).getAttribute('data-size'));
    // The one non-empty bucket: hover each until the tip counts a key.
    let found = -1;
    for (let i = 0; i < size && found < 0; i++) {
      await page.mouse.move(box.x + (box.width * (i + 0.5)) / size, box.y + box.height / 2);
      if (await page.locator('.strip-tip').filter({ hasText: ': 1 key' }).count()) found = i;
    }
    expect(found).toBeGreaterThanOrEqual(0);
    await expect(page.locator('.strip-tip')).toContainText('Click to pin this bucket');
    const at = { x: box.x + (box.width * (found + 0.5)) / size, y: box.y + box.height / 2 };
    await page.mouse.click(at.x, at.y);
    await page.mouse.move(box.x, box.y - 80);
    // Pinned, it stays when the pointer leaves; Close lets it go.
    await expect(app.byId('ht.pinned')).toBeVisible();
    await app.byId('ht.pinned.close').click();
    await expect(app.byId('ht.pinned')).toHaveCount(0);
    await page.mouse.click(at.x, at.y);
    await page.mouse.move(box.x, box.y - 80);
    await expect(app.byId('ht.pinned')).toBeVisible();
    await expect(app.byId('ht.bucket.key')).toHaveText(['user:1']);
    await app.byId('ht.bucket.key').click();
    await expect(app.byId('views.tab.inspect')).toHaveAttribute('aria-selected', 'true');
    await expect(app.byId('inspect.key')).toHaveValue('user:1');
    await expect(inspector.header).toHaveAttribute('data-type', 'hash');
    await expect(app.byId('inspect.lp.entry')).toHaveCount(2);
    expect(app.errors).toEqual([]);
  });

  test('while time plays the inspector follows the key, to its expiry', async ({ page }) => {
    const app = new SandboxPage(page);
    const inspector = new InspectorPane(app);
    await app.open({ seed: 5, pane: 'inspect' });
    await app.console.run('SET session:1 token PX 1500');
    await inspector.open('session:1');
    await expect(app.byId('inspect.header.ttl')).toContainText(/expires in 1\.\d+ s \(PTTL 1\d{3}\)/);
    await app.byId('time.play').click();
    // Active expiry removes it within a few cron ticks of its deadline.
    await expect(inspector.message).toHaveAttribute('data-state', 'missing', { timeout: 30_000 });
    await page.keyboard.press(' ');
    await app.idle();
    expect(app.errors).toEqual([]);
  });

  test('a shared link opens the inspector on the key it followed', async ({ page, browser }) => {
    const app = new SandboxPage(page);
    const inspector = new InspectorPane(app);
    await app.open({ seed: 5, pane: 'inspect' });
    await app.console.run('RPUSH shared a b c');
    await inspector.open('shared');
    const link = await page.evaluate(() => window.glasskv.shareLink());
    const context = await browser.newContext();
    const other = new SandboxPage(await context.newPage());
    await other.page.goto(link);
    await other.waitReady();
    await expect(other.byId('views.tab.inspect')).toHaveAttribute('aria-selected', 'true');
    await expect(other.byId('inspect.key')).toHaveValue('shared');
    await expect(other.byId('inspect.header')).toHaveAttribute('data-length', '3');
    await context.close();

    // Embedded, the pane shows the key the link names, and without a
    // link none: never the key the reader of the embedding page inspected
    // last, which stays as it was.
    const url = new URL(link);
    url.search = '?embed=1&view=inspect&lang=ko';
    const embedded = await browser.newContext();
    const embed = new SandboxPage(await embedded.newPage());
    await embed.page.goto('./');
    await embed.waitReady();
    await embed.page.evaluate(() => localStorage.setItem('glasskv.inspect', 'other'));
    await embed.page.goto('./?embed=1&view=inspect&lang=ko');
    await embed.waitReady();
    await expect(embed.byId('embed')).toHaveAttribute('data-view', 'inspect');
    await expect(embed.byId('inspect.message')).toHaveAttribute('data-state', 'none');
    await embed.page.goto(url.toString());
    await embed.waitReady();
    await expect(embed.byId('inspect.key')).toHaveValue('shared');
    await expect(embed.byId('inspect.header')).toHaveAttribute('data-type', 'list');
    expect(await embed.page.evaluate(() => localStorage.getItem('glasskv.inspect'))).toBe('other');
    await embedded.close();
  });

  for (const lang of ['en', 'ko'] as const) {
    test(`on a phone the pane fits the screen's width (390x844, ${lang})`, async ({ browser }) => {
      const app = await phone(browser, lang === 'ko' ? 'ko-KR' : 'en-US');
      const inspector = new InspectorPane(app);
      await app.open({ seed: 5, pane: 'inspect' });
      await app.byId(`lang.${lang}`).click();
      await app.console.run('CONFIG SET list-max-listpack-size 4');
      await app.console.run('RPUSH mylist hello 42 -7 1000 world');
      await app.console.run(`ZADD z ${Array.from({ length: 129 }, (_, i) => `${i} m${i}`).join(' ')}`);
      await inspector.open('mylist');
      await expect(app.byId('inspect.ql.node')).toHaveCount(2);
      await app.expectNoSideScroll();
      await below(app.byId('inspect.header'));
      await shot(app.page, `list-390x844-${lang}`);
      await inspector.open('z');
      await expect(app.byId('inspect.sl')).toBeVisible();
      await app.expectNoSideScroll();
      await below(app.byId('inspect.header'));
      await shot(app.page, `zset-390x844-${lang}`);
      expect(app.errors).toEqual([]);
      await app.page.context().close();
    });
  }
});

test.describe('the key inspector\'s facts', () => {
  for (const lang of ['en', 'ko'] as const) {
    test(`are labelled alike, in capitals where the script has them (${lang})`, async ({ page }) => {
      const app = new SandboxPage(page);
      const inspector = new InspectorPane(app);
      await page.setViewportSize(SCREENS.projector);
      await app.open({ seed: 5, pane: 'inspect' });
      await app.byId(`lang.${lang}`).click();
      await app.console.run('RPUSH mylist a b c');
      await inspector.open('mylist');
      await expect(inspector.header).toHaveAttribute('data-length', '3');
      const labels = await inspector.header.locator('dt').evaluateAll((els) => els.map((e) => {
        const s = getComputedStyle(e);
        return { text: (e as HTMLElement).innerText.trim(), style: `${s.fontSize} ${s.fontWeight} ${s.letterSpacing} ${s.color}` };
      }));
      expect(labels.length).toBeGreaterThanOrEqual(6);
      // As drawn (innerText follows text-transform): no label in lower case.
      expect(labels.filter((l) => l.text !== l.text.toUpperCase()).map((l) => l.text)).toEqual([]);
      expect(new Set(labels.map((l) => l.style)).size).toBe(1);
      await shot(page, `facts-labels-${lang}`);
      expect(app.errors).toEqual([]);
    });
  }
});
