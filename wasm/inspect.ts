// The key inspector's reading of one key (gkKeyInspect in glasskv.h): its
// type, encoding, length, MEMORY USAGE, expiry and the threshold that
// converts it, and its stored form as parts (parents first) with the
// encoded bytes of its blobs. Read only: the key is not touched.
//
//   inspectKey(world, node, 0, 'mylist')   // { info, parts, bytes } | null
import { GkError, type World } from './engine';
import { KeyInfoBytes, KeyPartBytes, Status, readKeyInfo, readKeyPart } from '../web/src/wasm-gen/seam';
import type { KeyInspection } from './protocol';

/** Most parts and bytes one reading returns; the rest are counted. */
export const INSPECT_MAX_PARTS = 20_000;
export const INSPECT_MAX_BYTES = 1 << 20;

const encoder = new TextEncoder();

/** The key's stored form, or null if db has no such key. */
export function inspectKey(world: World, node: number, db: number, key: string,
  maxParts = INSPECT_MAX_PARTS, maxBytes = INSPECT_MAX_BYTES): KeyInspection | null {
  const gk = world.engine;
  const name = encoder.encode(key);
  const keyAt = 0;
  const infoAt = name.length + 8 - (name.length % 8);
  const partsAt = infoAt + KeyInfoBytes + 8 - (KeyInfoBytes % 8);
  const bytesAt = partsAt + maxParts * KeyPartBytes;
  return gk.guard(() => gk.withBlock(bytesAt + maxBytes, (p) => {
    gk.module.HEAPU8.set(name, p + keyAt);
    const st = gk.module._gkKeyInspect(world.handle, node, db, p + keyAt, name.length, p + infoAt,
      p + partsAt, maxParts, p + bytesAt, maxBytes);
    try {
      world.checkStatus(st);
    } catch (e) {
      if (st === Status.ENOTFOUND && e instanceof GkError && e.message === 'no such key') return null;
      throw e;
    }
    const v = gk.view();
    const info = readKeyInfo(v, p + infoAt);
    const parts = Array.from({ length: info.nparts }, (_, i) => readKeyPart(v, p + partsAt + i * KeyPartBytes));
    const bytes = gk.module.HEAPU8.slice(p + bytesAt, p + bytesAt + info.nbytes);
    return { key, info, parts, bytes };
  }));
}
