// What a `glasskv focus` block may point at. Each name is carried by one
// element of the page (data-lesson-target), so a lesson can bring it into
// sight and highlight it without knowing the page's structure.
export const FOCUS_TARGETS = [
  'console', 'console.input',
  'ht', 'ht.table.0', 'ht.table.1', 'ht.actions',
  'scan', 'scan.controls', 'scan.cursor', 'scan.checker', 'scan.visited', 'scan.keys',
  'inspect',
  'loop.run', 'loop.labs', 'loop.timeline', 'loop.sequence', 'loop.clients', 'loop.charts',
  'aof', 'aof.controls', 'aof.crash', 'aof.stages', 'aof.file', 'aof.threads', 'aof.report',
  'network', 'network.start', 'network.map', 'network.table', 'network.log', 'network.labs',
  'slabs', 'slabs.console', 'slabs.classes', 'slabs.pages', 'slabs.whatif', 'slabs.fill', 'slabs.notes', 'slabs.labs',
] as const;

export type FocusTarget = (typeof FOCUS_TARGETS)[number];

export function isFocusTarget(name: string): name is FocusTarget {
  return (FOCUS_TARGETS as readonly string[]).includes(name);
}
