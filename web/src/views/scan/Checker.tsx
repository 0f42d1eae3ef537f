import { memo } from 'react';
import { useAppState, useT } from '../../app/hooks';
import { useLessonTarget } from '../lesson/hooks';
import { CheckIcon, CrossIcon } from '../../shell/icons';

/** The engine's audit of the walk: counts while walking, a verdict at the end. */
export const Checker = memo(function Checker() {
  const t = useT();
  const audit = useAppState((s) => s.snapshot?.scan?.audit ?? null);
  const done = useAppState((s) => s.snapshot?.scan?.done ?? false);
  const missingKeys = useAppState((s) => s.snapshot?.scan?.missingKeys ?? null);
  const target = useLessonTarget('scan.checker');
  if (!audit) return null;
  const pass = done && audit.missing === 0;
  const verdict = !done ? 'running' : pass ? 'pass' : 'fail';
  return (
    <div className={`card checker ${verdict}`} data-testid="scan.checker" data-verdict={verdict}
      data-missing={audit.missing} data-throughout={audit.throughout} data-returned={audit.returned} {...target}>
      <span className="card-label">{t('check.title')}</span>
      <p className="card-hint">{t('check.rule')}</p>
      <dl className="audit">
        <Stat label={t('check.tracked')} value={audit.tracked} />
        <Stat label={t('check.throughout')} value={audit.throughout} />
        <Stat label={t('check.returned')} value={audit.returned} />
        <Stat label={done ? t('check.missing') : t('check.pending')} value={audit.missing} tone={done && audit.missing ? 'bad' : ''} />
        <Stat label={t('check.dups')} value={audit.duplicates} />
        <Stat label={t('check.foreign')} value={audit.foreign} />
      </dl>
      <p className="verdict" data-testid="scan.verdict">
        {verdict === 'running' && t('check.progress', { r: audit.returned, n: audit.throughout })}
        {verdict === 'pass' && <><CheckIcon /> {t('check.pass', { n: audit.throughout })}</>}
        {verdict === 'fail' && <><CrossIcon /> {t('check.fail', { n: audit.missing })}</>}
      </p>
      {verdict === 'fail' && missingKeys?.length ? (
        <p className="missing">{t('check.missingList')} {missingKeys.slice(0, 20).join(', ')}</p>
      ) : null}
    </div>
  );
});

function Stat({ label, value, tone = '' }: { label: string; value: number; tone?: string }) {
  return (
    <div className={`audit-stat ${tone}`}>
      <dt>{label}</dt>
      <dd>{value.toLocaleString('en-US')}</dd>
    </div>
  );
}
