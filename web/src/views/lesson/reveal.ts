// Bringing what a lesson step points at into sight, inside the box that
// scrolls it (the views column, the lesson's text), never by scrolling the
// page itself: on a phone the page is one long column, and moving it away
// from the lesson the reader is reading would lose their place.

/** The nearest ancestor of el that scrolls vertically (not the page). */
function scroller(el: Element): HTMLElement | null {
  for (let p = el.parentElement; p && p !== document.body && p !== document.documentElement; p = p.parentElement) {
    const o = getComputedStyle(p).overflowY;
    if ((o === 'auto' || o === 'scroll') && p.scrollHeight > p.clientHeight) return p;
  }
  return null;
}

/** Scrolls el's box so that el is in it: the least movement that shows all
 *  of el, or its top when el is taller than the box. */
export function revealInside(el: Element, margin = 8): void {
  const box = scroller(el);
  if (!box) return;
  const b = box.getBoundingClientRect();
  const r = el.getBoundingClientRect();
  const top = r.top - b.top - margin;
  const bottom = r.bottom - b.bottom + margin;
  if (top < 0 || r.height + 2 * margin > b.height) box.scrollTop += top;
  else if (bottom > 0) box.scrollTop += bottom;
}

/** Keeps the first present element named by `targets` (data-lesson-target)
 *  in sight while the views around it settle (panels mount, charts load,
 *  a table grows), until the reader scrolls or clicks there, or `ms` pass.
 *  Returns the function that stops it. */
export function followTarget(targets: string[], ms = 8000): () => void {
  const find = () => {
    for (const name of targets) {
      const el = document.querySelector(`[data-lesson-target="${name}"]`);
      if (el) return el;
    }
    return null;
  };
  let frame = 0;
  let last = '';
  const check = () => {
    frame = 0;
    const el = find();
    if (!el) return;
    const box = scroller(el);
    const r = el.getBoundingClientRect();
    const b = box?.getBoundingClientRect();
    const where = `${Math.round(r.top - (b?.top ?? 0))}:${Math.round(r.height)}:${Math.round(b?.height ?? 0)}`;
    if (where === last) return;
    revealInside(el);
    const after = el.getBoundingClientRect();
    last = `${Math.round(after.top - (b?.top ?? 0))}:${Math.round(after.height)}:${Math.round(b?.height ?? 0)}`;
  };
  const schedule = () => {
    if (!frame) frame = requestAnimationFrame(check);
  };
  // Any change of size or of content in the page may move the target.
  const ro = new ResizeObserver(schedule);
  const observe = () => {
    for (const el of document.querySelectorAll('.views, .views > *, .lesson-body, .lesson-step')) ro.observe(el);
  };
  const mo = new MutationObserver(() => {
    observe();
    schedule();
  });
  const root = document.querySelector('.layout') ?? document.body;
  mo.observe(root, { childList: true, subtree: true });
  observe();
  schedule();
  const events = ['wheel', 'touchstart', 'pointerdown', 'keydown'] as const;
  const timer = window.setTimeout(() => stop(), ms);
  function stop(): void {
    ro.disconnect();
    mo.disconnect();
    window.clearTimeout(timer);
    if (frame) cancelAnimationFrame(frame);
    frame = 0;
    for (const e of events) window.removeEventListener(e, stop, true);
  }
  for (const e of events) window.addEventListener(e, stop, true);
  return stop;
}
