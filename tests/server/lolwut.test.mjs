// LOLWUT against Debian's redis-server 7.0: the version line word for
// word, and drawings of the same shape. Redis draws from rand() seeded by
// the clock, glasskv from its seeded PRNG, so a picture with anything
// random in it differs: what must agree is its size in characters or
// cells, the characters it may use, and the text under it. (Drawings
// with nothing random in them are compared byte for byte by
// tests/diff/scripts/lolwut.redis.)
//
// Run: node --test tests/server/lolwut.test.mjs
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openConnection, respEnd, startServer, until } from './servers.mjs';

/** The text of a bulk (RESP2) or verbatim (RESP3) reply. */
function text(reply) {
  const eol = reply.indexOf('\r\n');
  const body = Buffer.from(reply, 'latin1').subarray(eol + 2, reply.length - 2).toString('utf8');
  return reply[0] === '=' ? body.slice(4) : body;
}

/** Every cell of a VERSION 6 drawing is a space on one of four grays. */
const CELL = /\x1b\[0;(30;40|90;100|37;47|97;107)m \x1b\[0m/g;

/** A drawing's shape: each line's length in characters (Braille) or in
 *  cells (grays), and its last lines, the caption. */
function shape(body, captionLines) {
  const lines = body.split('\n');
  const caption = lines.splice(lines.length - captionLines - 1);
  return { widths: lines.map((l) => [...l.replace(CELL, 'c')].length), caption };
}

describe('LOLWUT draws what redis-server 7.0 draws, to the shape', () => {
  let g, r, gc, rc;
  before(async () => {
    [g, r] = await Promise.all([startServer('glasskv'), startServer('redis')]);
    [gc, rc] = await Promise.all([openConnection(g.port), openConnection(r.port)]);
  });
  after(async () => {
    gc?.close();
    rc?.close();
    await Promise.all([g?.stop(), r?.stop()]);
  });

  /** The reply to a command, waiting up to 10 s for all of it. */
  const ask = async (c, line) => {
    c.send(`${line}\r\n`);
    const whole = () => c.bytes().length > 0 && respEnd(c.bytes()) === c.bytes().length;
    assert.ok(await until(whole, 10000), `no whole reply to ${line}`);
    return c.take();
  };
  const both = (line) => Promise.all([ask(gc, line), ask(rc, line)]);

  it('LOLWUT with no version gives only the version line', async () => {
    const [mine, theirs] = await both('LOLWUT');
    assert.equal(text(theirs), 'Redis ver. 7.0.15\n');
    assert.equal(mine, theirs);
  });

  for (const args of ['', '40 5 7', '1000 200 200', '7 3 30']) {
    it(`LOLWUT VERSION 5 ${args} draws Schotter in as many Braille lines of as many characters`,
      async () => {
        const [mine, theirs] = (await both(`LOLWUT VERSION 5 ${args}`)).map(text);
        const [m, t] = [shape(mine, 1), shape(theirs, 1)];
        assert.deepEqual(m, t);
        assert.ok(t.widths.length > 0);
        assert.match(mine.split('\n').slice(0, -2).join(''), /^[\u2800-\u28ff]*$/u);
        assert.notEqual(mine.replace(/\u2800/gu, '').length, mine.length);
      });
  }

  for (const args of ['', '30 10', '1 1', '200 3']) {
    it(`LOLWUT VERSION 6 ${args} draws a skyline in as many rows of as many cells`, async () => {
      const [mine, theirs] = (await both(`LOLWUT VERSION 6 ${args}`)).map(text);
      const [m, t] = [shape(mine, 2), shape(theirs, 2)];
      assert.deepEqual(m, t);
      assert.equal(mine.split('\n').slice(0, -3).join('').replace(CELL, ''), '');
    });
  }

  it('LOLWUT VERSION 6 draws buildings: some cells are not sky', async () => {
    const mine = text(await ask(gc, 'LOLWUT VERSION 6'));
    const grays = new Set(mine.match(CELL));
    assert.ok(grays.size >= 3, `only ${[...grays].join(', ')}`);
  });

  it('LOLWUT answers verbatim text in RESP3', async () => {
    await both('HELLO 3');
    const [mine, theirs] = await both('LOLWUT VERSION 5 3 2 2');
    assert.match(theirs, /^=\d+\r\ntxt:/);
    assert.equal(mine, theirs);
    await both('HELLO 2');
  });

  it('a wrong argument is an error before anything is drawn', async () => {
    for (const line of ['LOLWUT VERSION x', 'LOLWUT VERSION 6 10 x', 'LOLWUT VERSION 5 1 2 y']) {
      const [mine, theirs] = await both(line);
      assert.equal(theirs, '-ERR value is not an integer or out of range\r\n');
      assert.equal(mine, theirs);
    }
  });
});
