// Copies of the module's linear memory, for rewinding. Everything a world
// owns lives in that memory (principle 4), so a copy of it taken between
// two engine calls is a complete checkpoint, and writing it back returns
// every world of the module to that moment.
//
// An image is cut into 64 KiB pages. A page equal to the same page of the
// previous image is shared with it instead of copied, so a run of images
// taken while a workload touches a few megabytes of a large heap costs
// those megabytes each, not the whole heap each.

export const PAGE_BYTES = 1 << 16;
const PAGE_WORDS = PAGE_BYTES / 4;

export interface MemoryImage {
  /** Bytes of memory the image covers, from address 0. */
  readonly length: number;
  /** The image's bytes, PAGE_BYTES per page (the last one may be shorter). */
  readonly pages: readonly Uint8Array[];
  /** Bytes of pages this image holds that the previous image did not. */
  readonly ownBytes: number;
}

function samePage(heap: Uint8Array, offset: number, page: Uint8Array): boolean {
  const n = page.length;
  if (n === PAGE_BYTES && (heap.byteOffset + offset) % 4 === 0) {
    const a = new Int32Array(heap.buffer, heap.byteOffset + offset, PAGE_WORDS);
    const b = new Int32Array(page.buffer, page.byteOffset, PAGE_WORDS);
    for (let i = 0; i < PAGE_WORDS; i++) if (a[i] !== b[i]) return false;
    return true;
  }
  for (let i = 0; i < n; i++) if (heap[offset + i] !== page[i]) return false;
  return true;
}

/** Copies heap[0, length), sharing the pages unchanged since `previous`. */
export function captureImage(heap: Uint8Array, length: number, previous: MemoryImage | null): MemoryImage {
  const pages: Uint8Array[] = [];
  let own = 0;
  for (let offset = 0, i = 0; offset < length; offset += PAGE_BYTES, i++) {
    const end = Math.min(length, offset + PAGE_BYTES);
    const old = previous?.pages[i];
    if (old && old.length === end - offset && samePage(heap, offset, old)) {
      pages.push(old);
      continue;
    }
    pages.push(heap.slice(offset, end));
    own += end - offset;
  }
  return { length, pages, ownBytes: own };
}

/** Writes the image back at address 0 and zeroes memory from its end up to
 *  clearTo (the heap's current end), as a heap that never grew past the
 *  image would have it. The memory must be at least image.length long,
 *  which holds for any image of the same module: memory never shrinks. */
export function restoreImage(heap: Uint8Array, image: MemoryImage, clearTo: number): void {
  if (heap.length < image.length) throw new RangeError('memory is smaller than the image');
  let offset = 0;
  for (const page of image.pages) {
    heap.set(page, offset);
    offset += page.length;
  }
  if (clearTo > image.length) heap.fill(0, image.length, Math.min(clearTo, heap.length));
}
