// How large the page's type is, for what is drawn on canvas: a drawing's
// sizes are written for the normal root font (17 px) and grow with it, so
// that in presenter mode a timeline's labels grow as the text around them
// does. Canvas pixels per design pixel = devicePixelRatio × typeScale.

/** The root font size the drawings are designed at. */
const DESIGN_ROOT_PX = 17;

/** The root font size over the design's (1 normally, about 1.2 in presenter
 *  mode at 1280x720, 1.8 at 1920x1080). */
export function typeScale(): number {
  const px = parseFloat(getComputedStyle(document.documentElement).fontSize);
  return px > 0 ? px / DESIGN_ROOT_PX : 1;
}

/** Canvas pixels per design pixel: what the renderers call dpr. */
export function drawScale(): number {
  return (window.devicePixelRatio || 1) * typeScale();
}

/** A length in design pixels as CSS (rem), for the boxes drawings fill. */
export function designRem(px: number): string {
  return `${px / DESIGN_ROOT_PX}rem`;
}

let probe: HTMLElement | null = null;
let observer: ResizeObserver | null = null;
const listeners = new Set<() => void>();

/** Calls fn whenever the root font size changes (presenter mode on or off,
 *  a projector's window resized). A 1rem box's size tells. */
export function onTypeScale(fn: () => void): () => void {
  if (!probe) {
    probe = document.createElement('div');
    probe.setAttribute('aria-hidden', 'true');
    probe.style.cssText = 'position:absolute;width:1rem;height:1rem;visibility:hidden;pointer-events:none;left:0;top:0';
    document.body.appendChild(probe);
    let first = true;
    observer = new ResizeObserver(() => {
      // The first report is the size it starts at, not a change.
      if (first) {
        first = false;
        return;
      }
      for (const l of listeners) l();
    });
    observer.observe(probe);
  }
  listeners.add(fn);
  return () => listeners.delete(fn);
}
