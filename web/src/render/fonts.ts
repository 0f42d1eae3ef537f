// The font stacks of canvas text: the page's own (styles.css, --sans and
// --mono), read once, so that a label drawn on a canvas uses the same
// Korean fonts as the text around it. Outside a page (a test), the generic
// families.
let stacks: { sans: string; mono: string } | null = null;

function read(): { sans: string; mono: string } {
  if (stacks) return stacks;
  const fallback = { sans: 'sans-serif', mono: 'monospace' };
  if (typeof document === 'undefined') return fallback;
  const s = getComputedStyle(document.documentElement);
  stacks = {
    sans: s.getPropertyValue('--sans').trim() || fallback.sans,
    mono: s.getPropertyValue('--mono').trim() || fallback.mono,
  };
  return stacks;
}

/** A canvas font: `px` already in canvas pixels. */
export function canvasFont(px: number, weight: 400 | 600 | 700 = 400): string {
  return `${weight} ${Math.round(px)}px ${read().sans}`;
}

export function canvasMono(px: number, weight: 400 | 600 | 700 = 400): string {
  return `${weight} ${Math.round(px)}px ${read().mono}`;
}
