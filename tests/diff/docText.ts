// The documentation text of COMMAND's replies, set apart in what
// redis-cli --no-raw prints, for tests/diff/scripts/command.redis.
//
// glasskv describes its commands with the interface Redis 7.0 declares
// (flags, key specs, arguments, versions...) but writes its own summary
// and complexity for each, and gives no history and no key spec notes:
// that text is Redis's own prose, not part of the interface. So before
// the two outputs of that script are compared, the printed replies are
// read back into trees, the values of "summary" and "complexity" are
// masked on both sides, and redis-server's "history" entries and key
// spec "notes" are removed; everything else is compared as printed.

/** A reply as redis-cli printed it: a line of text, or an array. */
type Node = string | Node[];

/**
 * Reads the value that starts at column `col` of line `li`; `prefix` is
 * the indentation of the array holding it. An array is printed as
 * "1) first" there, the first element on the line of its index, and
 * "PREFIX  k) element" for the others, indexes right-aligned to the width
 * of the largest; the elements' own arrays are indented by that width
 * plus two.
 */
function readValue(lines: string[], li: number, col: number, prefix: string): [Node, number] {
  const text = lines[li].slice(col);
  const first = /^( *)1\) /.exec(text);
  if (!first) return [text, li + 1];
  const width = first[0].length - 2;
  const inner = prefix + ' '.repeat(width + 2);
  const items: Node[] = [];
  let [item, next] = readValue(lines, li, col + first[0].length, inner);
  items.push(item);
  for (let k = 2; next < lines.length; k++) {
    const head = `${prefix}${String(k).padStart(width)}) `;
    if (!lines[next].startsWith(head)) break;
    [item, next] = readValue(lines, next, head.length, inner);
    items.push(item);
  }
  return [items, next];
}

/** Every reply printed in `out`, in order. */
function readReplies(out: string): Node[] {
  const lines = out.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const replies: Node[] = [];
  for (let li = 0; li < lines.length;) {
    const [node, next] = readValue(lines, li, 0, '');
    replies.push(node);
    li = next;
  }
  return replies;
}

/** Prints a reply back as redis-cli does. */
function print(node: Node, prefix: string, out: string[], head: string): void {
  if (typeof node === 'string') {
    out.push(head + node);
    return;
  }
  const width = String(node.length).length;
  const inner = prefix + ' '.repeat(width + 2);
  node.forEach((item, k) => {
    const index = `${String(k + 1).padStart(width)}) `;
    print(item, inner, out, k === 0 ? head + index : prefix + index);
  });
}

/** A flat array of key, value pairs holding `key`. */
const isMapWith = (node: Node, key: string): node is Node[] => Array.isArray(node) &&
  node.length % 2 === 0 && node.some((k, j) => j % 2 === 0 && k === key);

function setApart(node: Node, drop: string[]): Node {
  if (typeof node === 'string') return node;
  let items = node.map((item) => setApart(item, drop));
  const docs = isMapWith(items, '"group"');
  const spec = isMapWith(items, '"begin_search"');
  if (docs || spec) {
    const pairs: Node[] = [];
    for (let j = 0; j < items.length; j += 2) {
      const key = items[j];
      if (typeof key === 'string' && drop.includes(key)) continue;
      const masked = docs && (key === '"summary"' || key === '"complexity"');
      pairs.push(key, masked ? '"(documentation text)"' : items[j + 1]);
    }
    items = pairs;
  }
  return items;
}

/**
 * What redis-cli printed for COMMAND replies, with the documentation
 * text set apart: the summary and complexity of COMMAND DOCS masked, and
 * the entries named in `drop` ('"history"', '"notes"') removed.
 */
export function withoutDocText(out: string, drop: string[]): string {
  const lines: string[] = [];
  for (const reply of readReplies(out)) print(setApart(reply, drop), '', lines, '');
  return lines.length ? `${lines.join('\n')}\n` : '';
}
