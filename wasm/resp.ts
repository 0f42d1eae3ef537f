// The few RESP2 reads and writes the worker needs to drive the engine on
// behalf of buttons (DEBUG POPULATE, RANDOMKEY + DEL, SCAN): encoding a
// request from arguments and decoding a reply into values. What a person
// reads in the console is never produced here: that is the C formatter's job
// (cliFormatReply), so the console prints exactly what redis-cli prints.

export type Reply =
  | { type: 'status'; value: string }
  | { type: 'error'; value: string }
  | { type: 'int'; value: bigint }
  | { type: 'bulk'; value: Uint8Array | null }
  | { type: 'array'; value: Reply[] | null };

const encoder = new TextEncoder();
const CR = 13;
const LF = 10;

/** A multibulk request: *argc then each argument as a bulk string. */
export function encodeRequest(args: readonly (string | Uint8Array)[]): Uint8Array {
  const parts: Uint8Array[] = [encoder.encode(`*${args.length}\r\n`)];
  for (const a of args) {
    const bytes = typeof a === 'string' ? encoder.encode(a) : a;
    parts.push(encoder.encode(`$${bytes.length}\r\n`), bytes, encoder.encode('\r\n'));
  }
  return concat(parts);
}

export function concat(parts: readonly Uint8Array[]): Uint8Array {
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Uint8Array(n);
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

function lineEnd(buf: Uint8Array, from: number): number {
  for (let i = from; i + 1 < buf.length; i++) {
    if (buf[i] === CR && buf[i + 1] === LF) return i;
  }
  return -1;
}

function latin1(buf: Uint8Array, from: number, to: number): string {
  let s = '';
  for (let i = from; i < to; i++) s += String.fromCharCode(buf[i]);
  return s;
}

export class RespError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RespError';
  }
}

/** Decodes the reply starting at `offset`. Returns null when the buffer
 *  ends before the reply does; throws RespError on malformed input. */
export function parseReply(buf: Uint8Array, offset = 0): { reply: Reply; end: number } | null {
  if (offset >= buf.length) return null;
  const eol = lineEnd(buf, offset + 1);
  if (eol < 0) return null;
  const line = latin1(buf, offset + 1, eol);
  const next = eol + 2;
  switch (buf[offset]) {
    case 43: // '+'
      return { reply: { type: 'status', value: line }, end: next };
    case 45: // '-'
      return { reply: { type: 'error', value: line }, end: next };
    case 58: // ':'
      return { reply: { type: 'int', value: BigInt(line) }, end: next };
    case 36: { // '$'
      const len = Number(line);
      if (!Number.isInteger(len) || len < -1) throw new RespError(`bad bulk length ${line}`);
      if (len === -1) return { reply: { type: 'bulk', value: null }, end: next };
      if (next + len + 2 > buf.length) return null;
      return { reply: { type: 'bulk', value: buf.slice(next, next + len) }, end: next + len + 2 };
    }
    case 42: { // '*'
      const count = Number(line);
      if (!Number.isInteger(count) || count < -1) throw new RespError(`bad array length ${line}`);
      if (count === -1) return { reply: { type: 'array', value: null }, end: next };
      const items: Reply[] = [];
      let at = next;
      for (let i = 0; i < count; i++) {
        const item = parseReply(buf, at);
        if (!item) return null;
        items.push(item.reply);
        at = item.end;
      }
      return { reply: { type: 'array', value: items }, end: at };
    }
    default:
      throw new RespError(`unexpected reply type byte ${buf[offset]}`);
  }
}

/** The arguments of a multibulk request (as the console's line splitter produces), as
 *  byte strings. Returns null if buf is not exactly one such request. */
export function parseRequest(buf: Uint8Array): Uint8Array[] | null {
  const parsed = parseReply(buf, 0);
  if (!parsed || parsed.end !== buf.length || parsed.reply.type !== 'array' || !parsed.reply.value) return null;
  const args: Uint8Array[] = [];
  for (const r of parsed.reply.value) {
    if (r.type !== 'bulk' || !r.value) return null;
    args.push(r.value);
  }
  return args;
}

/** Bytes as a string of the same length, one char per byte: a faithful
 *  identity for binary keys (two keys are equal iff their strings are). */
export function bytesToLatin1(b: Uint8Array): string {
  return latin1(b, 0, b.length);
}

export function latin1ToBytes(s: string): Uint8Array {
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i) & 0xff;
  return out;
}
