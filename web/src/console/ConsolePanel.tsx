import { memo, useCallback, useEffect, useRef } from 'react';
import { useAppState, useReady, useStoreApi, useT } from '../app/hooks';
import { AsideNotice } from './AsideNotice';
import { PromptInput } from './PromptInput';
import { Transcript } from './Transcript';
import { useLessonTarget } from '../views/lesson/hooks';

export const ConsolePanel = memo(function ConsolePanel() {
  const t = useT();
  const store = useStoreApi();
  const input = useRef<HTMLTextAreaElement>(null);
  const ready = useReady();
  const blocked = useAppState((s) => s.blocked !== null);
  const target = useLessonTarget('console');
  useEffect(() => {
    // Ready to type into, where a keyboard is at hand: on a touch screen the
    // focus would open the on-screen keyboard, and on a narrow one scroll
    // the page to the console. Never scrolls: the page opens at its top.
    if (!ready || !matchMedia('(pointer: fine)').matches) return;
    if (!document.activeElement?.closest('input, select, textarea, button')) input.current?.focus({ preventScroll: true });
  }, [ready]);
  const focusInput = useCallback(() => {
    if (!window.getSelection()?.toString()) input.current?.focus();
  }, []);
  return (
    <section className="panel console" aria-labelledby="console-title" {...target}>
      <header className="panel-head">
        <h2 id="console-title">{t('console.title')}</h2>
        <button type="button" className="btn ghost small" data-testid="console.clear" onClick={() => store.clearConsole()}>
          {t('console.clear')}
        </button>
      </header>
      <p className="panel-hint">{t('console.hint')}</p>
      <AsideNotice />
      <div className="terminal" onClick={focusInput}>
        <Transcript />
        {blocked ? <p className="console-blocked" role="status" data-testid="console.blocked">{t('console.blocked')}</p> : null}
        <PromptInput inputRef={input} />
      </div>
    </section>
  );
});
