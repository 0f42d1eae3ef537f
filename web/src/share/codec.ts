// A shared state as text that fits in a URL fragment: JSON, compressed
// with raw DEFLATE (the browser's CompressionStream), in base64url. The
// fragment never reaches a server, and "s=" leaves room for other keys.
//
// Decoding trusts nothing: the base64 alphabet, the DEFLATE stream (read
// with a cap, so a small link cannot inflate to gigabytes), the JSON, then
// every field (validate.ts).
import { checkShared, ShareError, type SharedState } from './validate';

/** Longest link the Share button offers; past it, export a file. Browsers
 *  take far longer URLs, but chat programs and mail clients cut or refuse
 *  them well before. */
export const MAX_LINK_CHARS = 32_000;
/** Most bytes a fragment may inflate to. */
const MAX_JSON_BYTES = 16 << 20;
export const FRAGMENT_KEY = 's';

async function pump(stream: ReadableStream<Uint8Array>, limit: number): Promise<Uint8Array> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let n = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    n += value.length;
    if (n > limit) {
      await reader.cancel();
      throw new ShareError('share.err.tooBig');
    }
    chunks.push(value);
  }
  const out = new Uint8Array(n);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

function through(bytes: Uint8Array, t: CompressionStream | DecompressionStream): ReadableStream<Uint8Array> {
  return new Blob([bytes as Uint8Array<ArrayBuffer>]).stream().pipeThrough(t as TransformStream<Uint8Array, Uint8Array>);
}

export function toBase64Url(bytes: Uint8Array): string {
  let bin = '';
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

export function fromBase64Url(text: string): Uint8Array {
  if (!/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) throw new ShareError('share.err.encoding');
  const b64 = text.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (text.length % 4)) % 4);
  const bin = atob(b64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/** The shared state as the text after "#s=". */
export async function encodeState(state: SharedState): Promise<string> {
  const json = new TextEncoder().encode(JSON.stringify({ v: 1, ...state }));
  const packed = await pump(through(json, new CompressionStream('deflate-raw')), Infinity);
  return toBase64Url(packed);
}

/** Parses the text after "#s=" back into a checked state. */
export async function decodeState(text: string): Promise<SharedState> {
  const packed = fromBase64Url(text);
  if (packed.length === 0) throw new ShareError('share.err.encoding');
  let json: Uint8Array;
  try {
    json = await pump(through(packed, new DecompressionStream('deflate-raw')), MAX_JSON_BYTES);
  } catch (e) {
    if (e instanceof ShareError) throw e;
    throw new ShareError('share.err.compressed');
  }
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(json));
  } catch {
    throw new ShareError('share.err.json');
  }
  return checkShared(value);
}

/** The state carried by a location's fragment ("#s=..."), if any. */
export function fragmentOf(hash: string): string | null {
  const params = new URLSearchParams(hash.replace(/^#/, ''));
  return params.get(FRAGMENT_KEY);
}

/** The page's address with `encoded` as its fragment, and `query` as its
 *  search (the app's own address otherwise). */
export function linkFor(encoded: string, base: string, query = ''): string {
  const url = new URL(base);
  url.search = query;
  url.hash = `${FRAGMENT_KEY}=${encoded}`;
  return url.href;
}
