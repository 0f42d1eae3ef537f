// The few RESP reads and writes the worker needs to drive the engine on
// behalf of buttons (DEBUG POPULATE, RANDOMKEY + DEL, SCAN): encoding a
// request from arguments and decoding a reply into values. What a person
// reads in the console is never produced here: that is the C formatter's job
// (cliFormatReply), so the console prints exactly what redis-cli prints.

export type Reply =
  | { type: 'status'; value: string }
  | { type: 'error'; value: string }
  | { type: 'int'; value: bigint }
  | { type: 'bulk'; value: Uint8Array | null }
  | { type: 'array'; value: Reply[] | null }
  // RESP3, after HELLO 3: a map or set keeps its elements in order (a
  // map's as key, value, key, value ...); a push is out-of-band data.
  | { type: 'map' | 'set' | 'push'; value: Reply[] }
  | { type: 'double' | 'bignum'; value: string }
  | { type: 'bool'; value: boolean }
  | { type: 'null'; value: null };

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
 *  does not hold all of it yet; throws RespError on bytes that are not
 *  RESP2 or RESP3. An attribute ("|") is read with the reply it comes
 *  before, and only that reply is returned. */
export function parseReply(buf: Uint8Array, offset = 0): { reply: Reply; end: number } | null {
  if (offset >= buf.length) return null;
  const eol = lineEnd(buf, offset + 1);
  if (eol < 0) return null;
  const line = latin1(buf, offset + 1, eol);
  const next = eol + 2;
  const length = (what: string, min: number): number => {
    const n = Number(line);
    if (line === '' || !Number.isInteger(n) || n < min) throw new RespError(`bad ${what} length ${line}`);
    return n;
  };
  /** count elements from `next`, or null if they are not all here. */
  const elements = (count: number): { items: Reply[]; end: number } | null => {
    const items: Reply[] = [];
    let at = next;
    for (let i = 0; i < count; i++) {
      const item = parseReply(buf, at);
      if (!item) return null;
      items.push(item.reply);
      at = item.end;
    }
    return { items, end: at };
  };
  switch (buf[offset]) {
    case 43: // '+'
      return { reply: { type: 'status', value: line }, end: next };
    case 45: // '-'
      return { reply: { type: 'error', value: line }, end: next };
    case 58: // ':'
      if (!/^-?\d+$/.test(line)) throw new RespError(`bad integer ${line}`);
      return { reply: { type: 'int', value: BigInt(line) }, end: next };
    case 36: // '$'
    case 61: // '=' verbatim: "txt:" then the text
    case 33: { // '!' blob error
      const len = length('bulk', buf[offset] === 36 ? -1 : 0);
      if (len === -1) return { reply: { type: 'bulk', value: null }, end: next };
      if (next + len + 2 > buf.length) return null;
      const bytes = buf.slice(next, next + len);
      const end = next + len + 2;
      if (buf[offset] === 33) return { reply: { type: 'error', value: latin1(bytes, 0, bytes.length) }, end };
      return { reply: { type: 'bulk', value: buf[offset] === 61 ? bytes.slice(Math.min(4, len)) : bytes }, end };
    }
    case 42: { // '*'
      const count = length('array', -1);
      if (count === -1) return { reply: { type: 'array', value: null }, end: next };
      const got = elements(count);
      return got && { reply: { type: 'array', value: got.items }, end: got.end };
    }
    case 37: // '%' map
    case 126: // '~' set
    case 62: { // '>' push
      const type = buf[offset] === 37 ? 'map' : buf[offset] === 126 ? 'set' : 'push';
      const count = length(type, 0);
      const got = elements(type === 'map' ? count * 2 : count);
      return got && { reply: { type, value: got.items }, end: got.end };
    }
    case 124: { // '|' attribute, then the reply it annotates
      const got = elements(length('attribute', 0) * 2);
      return got && parseReply(buf, got.end);
    }
    case 44: // ',' double
      return { reply: { type: 'double', value: line }, end: next };
    case 40: // '(' big number
      return { reply: { type: 'bignum', value: line }, end: next };
    case 35: // '#' boolean
      if (line !== 't' && line !== 'f') throw new RespError(`bad boolean ${line}`);
      return { reply: { type: 'bool', value: line === 't' }, end: next };
    case 95: // '_' null
      return { reply: { type: 'null', value: null }, end: next };
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

const PUBSUB_KINDS = new Set(['message', 'pmessage', 'smessage', 'subscribe', 'psubscribe',
  'ssubscribe', 'unsubscribe', 'punsubscribe', 'sunsubscribe']);

/** The kind of a Pub/Sub message or (un)subscription confirmation, an
 *  array (RESP2) or a push (RESP3) of at least 3 elements whose first is
 *  one of those names; null for any other reply. */
export function pubsubKind(r: Reply): string | null {
  if ((r.type !== 'array' && r.type !== 'push') || !r.value || r.value.length < 3) return null;
  const first = r.value[0];
  if (first.type !== 'bulk' || !first.value) return null;
  const kind = latin1(first.value, 0, first.value.length);
  return PUBSUB_KINDS.has(kind) ? kind : null;
}

/** A push that answers no command: a Pub/Sub message or any other
 *  out-of-band data. (The confirmations of SUBSCRIBE and friends are
 *  pushes too in RESP3, but they are those commands' replies.) */
export function isOutOfBand(r: Reply): boolean {
  if (r.type !== 'push') return false;
  const kind = pubsubKind(r);
  return kind === null || kind.endsWith('message');
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
