// Virtual-time axes: tick positions and labels from nanoseconds to hours.
// Pure functions, shared by the timeline, the sequence diagram and charts.

const STEPS = [1, 2, 5];

/** A tick step of 1, 2 or 5 times a power of ten ns, giving about `want` ticks. */
export function tickStep(span: number, want: number): number {
  const raw = Math.max(1, span / Math.max(1, want));
  const p = 10 ** Math.floor(Math.log10(raw));
  for (const s of STEPS) if (s * p >= raw) return s * p;
  return 10 * p;
}

export function ticks(t0: number, t1: number, want: number): { step: number; at: number[] } {
  const step = tickStep(t1 - t0, want);
  const at: number[] = [];
  for (let t = Math.ceil(t0 / step) * step; t <= t1 && at.length < 200; t += step) at.push(t);
  return { step, at };
}

/** A duration in the unit that suits it: "250 ns", "1.5 µs", "12 ms", "3.25 s", "2 min 5 s". */
export function formatDuration(ns: number, digits = 3): string {
  const a = Math.abs(ns);
  const sign = ns < 0 ? '−' : '';
  const fix = (v: number) => String(Number(v.toPrecision(digits)));
  if (a < 1e3) return `${sign}${fix(a)} ns`;
  if (a < 1e6) return `${sign}${fix(a / 1e3)} µs`;
  if (a < 1e9) return `${sign}${fix(a / 1e6)} ms`;
  if (a < 120e9) return `${sign}${fix(a / 1e9)} s`;
  const min = Math.floor(a / 60e9);
  return `${sign}${min} min ${Math.round((a - min * 60e9) / 1e9)} s`;
}

/** The unit a step is best read in, and its size in ns. */
function unitFor(step: number): [string, number] {
  if (step < 1e3) return ['ns', 1];
  if (step < 1e6) return ['µs', 1e3];
  if (step < 1e9) return ['ms', 1e6];
  return ['s', 1e9];
}

function decimalsFor(step: number, size: number): number {
  return Math.max(0, Math.ceil(-Math.log10(step / size) - 1e-9));
}

/** A tick label at time t for ticks `step` apart, in the unit of t's
 *  size ("261.5 ms", "3.25 s"), exact to the step. */
export function tickLabel(t: number, step: number): string {
  let [unit, size] = unitFor(Math.max(Math.abs(t), step));
  let decimals = decimalsFor(step, size);
  if (decimals > 3) {
    [unit, size] = unitFor(step);
    decimals = decimalsFor(step, size);
  }
  return `${(t / size).toFixed(decimals)} ${unit}`;
}

/** Whether labels of absolute times would need more than three decimals
 *  for ticks this close: then ticks are labelled from a base time. */
export function needsBase(t0: number, step: number): boolean {
  return decimalsFor(step, unitFor(Math.max(Math.abs(t0), step))[1]) > 3;
}
