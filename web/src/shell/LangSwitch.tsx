import { memo } from 'react';
import { useAppState, useStoreApi, useT } from '../app/hooks';
import type { Lang } from '../i18n';

const LANGS: { lang: Lang; label: string }[] = [
  { lang: 'en', label: 'English' },
  { lang: 'ko', label: '한국어' },
];

export const LangSwitch = memo(function LangSwitch() {
  const t = useT();
  const store = useStoreApi();
  const current = useAppState((s) => s.lang);
  return (
    <div className="segmented" role="group" aria-label={t('lang.label')}>
      {LANGS.map(({ lang, label }) => (
        <button
          key={lang}
          type="button"
          lang={lang}
          aria-pressed={current === lang}
          data-testid={`lang.${lang}`}
          onClick={() => store.setLang(lang)}
        >
          {label}
        </button>
      ))}
    </div>
  );
});
