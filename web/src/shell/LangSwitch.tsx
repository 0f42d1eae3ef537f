import { memo } from 'react';
import { useAppState, useStoreApi, useT } from '../app/hooks';
import type { Lang } from '../i18n';

const LANGS: { lang: Lang; label: string; short: string }[] = [
  { lang: 'en', label: 'English', short: 'EN' },
  { lang: 'ko', label: '한국어', short: '한' },
];

/** English or Korean; idPrefix names its buttons' test ids (the header's
 *  are lang.en and lang.ko). */
export const LangSwitch = memo(function LangSwitch({ idPrefix = 'lang' }: { idPrefix?: string }) {
  const t = useT();
  const store = useStoreApi();
  const current = useAppState((s) => s.lang);
  return (
    <div className="segmented lang-switch" role="group" aria-label={t('lang.label')}>
      {LANGS.map(({ lang, label, short }) => (
        <button
          key={lang}
          type="button"
          lang={lang}
          aria-pressed={current === lang}
          data-testid={`${idPrefix}.${lang}`}
          onClick={() => store.setLang(lang)}
          aria-label={label}
          title={label}
        >
          {/* The short form shows on narrower screens (styles.css). */}
          <span className="lang-long" aria-hidden="true">{label}</span>
          <span className="lang-short" aria-hidden="true">{short}</span>
        </button>
      ))}
    </div>
  );
});
