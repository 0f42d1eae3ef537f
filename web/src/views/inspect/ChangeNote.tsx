import { memo } from 'react';
import { useAppState, useT } from '../../app/hooks';
import type { Lang, Translate } from '../../i18n';
import { formatClock } from '../../model/format';
import { fillRule, typeName, type Change } from './model';

const ordinalRules = new Intl.PluralRules('en-US', { type: 'ordinal' });
const SUFFIX: Record<string, string> = { one: 'st', two: 'nd', few: 'rd', other: 'th' };

/** "129th" in English, "129번째" in Korean. */
export function ordinal(lang: Lang, n: number): string {
  if (lang === 'ko') return `${n}번째`;
  return `${n}${SUFFIX[ordinalRules.select(n)] ?? 'th'}`;
}

/** What a quicklist's fill lets one node hold, in words. */
export function ruleText(t: Translate, fill: number): string {
  const r = fillRule(fill);
  return r.by === 'count'
    ? t('inspect.rule.count', { n: r.entries, fill: String(fill) })
    : t('inspect.rule.size', { kb: r.bytes / 1024, fill: String(fill) });
}

/** A change in words: which encoding gave way to which, and the setting
 *  that made it. */
export function changeText(t: Translate, lang: Lang, c: Change, type: number): string {
  const hash = typeName(type) === 'hash';
  switch (c.kind) {
    case 'entries':
      if (c.length === c.limit + 1 && c.before <= c.limit) {
        return t('inspect.change.nth', {
          from: c.from, to: c.to, nth: ordinal(lang, c.length), what: t(hash ? 'inspect.what.field' : 'inspect.what.member'),
          config: c.config, limit: c.limit,
        });
      }
      return t('inspect.change.many', {
        from: c.from, to: c.to, length: c.length, whats: t(hash ? 'inspect.what.fields' : 'inspect.what.members'),
        what: t(hash ? 'inspect.what.fields' : 'inspect.what.members'), config: c.config, limit: c.limit,
      });
    case 'value':
      return c.member !== null && c.bytes !== null
        ? t('inspect.change.valueMember', { from: c.from, to: c.to, member: c.member, bytes: c.bytes, config: c.config, limit: c.limit })
        : t('inspect.change.value', { from: c.from, to: c.to, config: c.config, limit: c.limit });
    case 'notInt':
      return t('inspect.change.notInt', { from: c.from, to: c.to });
    case 'width':
      return t('inspect.change.width', { from: c.from * 8, to: c.to * 8 });
    case 'nodes':
      return c.to > c.from
        ? t('inspect.change.nodesUp', { from: c.from, to: c.to, rule: ruleText(t, c.fill) })
        : t('inspect.change.nodesDown', { from: c.from, to: c.to });
    case 'string':
      if (c.to === 'raw' && c.length > 44) return t('inspect.change.stringLong', { from: c.from, to: c.to });
      if (c.to === 'raw') return t('inspect.change.stringRaw', { from: c.from, to: c.to });
      return t('inspect.change.string', { from: c.from, to: c.to });
    case 'encoding':
      return t('inspect.change.encoding', { from: c.from, to: c.to });
  }
}

/** The last change seen in how the key is stored, and when. */
export const ChangeNote = memo(function ChangeNote({ change, at, type }: { change: Change; at: number | null; type: number }) {
  const t = useT();
  const lang = useAppState((s) => s.lang);
  return (
    <p className="inspect-change" role="status" data-testid="inspect.change" data-kind={change.kind}>
      <span className="inspect-change-text">{changeText(t, lang, change, type)}</span>
      {at !== null ? <span className="inspect-change-at">{t('inspect.change.seen', { t: formatClock(at) })}</span> : null}
    </p>
  );
});
