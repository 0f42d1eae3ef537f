// Which links a lesson may hold: read as the browser reads an address
// (the WHATWG URL parser), so no spelling slips a script or another host
// past the check.
import { describe, expect, it } from 'vitest';
import { safeHref } from '../../web/src/lessons/markdown';

describe('a lesson link', () => {
  it.each([
    ['a tab inside the scheme', 'java\tscript:alert(1)'],
    ['a newline inside the scheme', 'java\nscript:alert(1)'],
    ['a control character before it', '\x01javascript:alert(1)'],
    ['a NUL before it', '\x00javascript:alert(1)'],
    ['a space before it', ' javascript:alert(1)'],
    ['mixed case', 'JaVaScRiPt:alert(1)'],
    ['a data: address', 'data:text/html,<script>alert(1)</script>'],
    ['a vbscript: address', 'vbscript:msgbox(1)'],
    ['a file: address', 'file:///etc/passwd'],
    ['a blob: address', 'blob:https://example.com/1'],
    ['a scheme written over our own base', 'https:foo'],
  ])('is dropped when its scheme is not web or mail: %s', (_, href) => {
    expect(safeHref(href)).toBeNull();
  });

  it.each([
    ['/\\evil.example', 'https://evil.example/'],
    ['//evil.example', 'https://evil.example/'],
    ['\\\\evil.example/x', 'https://evil.example/x'],
    ['\t//evil.example', 'https://evil.example/'],
  ])('to another host through leading slashes is absolute, never relative: %j', (href, absolute) => {
    expect(safeHref(href)).toBe(absolute);
  });

  it.each([
    ['https://redis.io/docs/', 'https://redis.io/docs/'],
    ['HTTP://Example.com/a b', 'http://example.com/a%20b'],
    ['mailto:someone@example.com', 'mailto:someone@example.com'],
    [' https://redis.io/ ', 'https://redis.io/'],
  ])('to the web or to mail is kept, as the parser reads it: %j', (href, kept) => {
    expect(safeHref(href)).toBe(kept);
  });

  it.each([
    ['#top', '#top'],
    ['other-lesson.md', 'other-lesson.md'],
    ['../en/aof.md#crash', '../en/aof.md#crash'],
    ['?lesson=aof', '?lesson=aof'],
    ['/docs/index.html', '/docs/index.html'],
    ['java\x01script:x', 'java\x01script:x'],
    ['  #sp\tace ', '#space'],
  ])('on this site is kept relative: %j', (href, kept) => {
    expect(safeHref(href)).toBe(kept);
  });

  it('that does not parse is dropped', () => {
    expect(safeHref('http://[::1')).toBeNull();
    expect(safeHref('https://exa mple.com/')).toBeNull();
  });
});
