import { memo, useCallback, useEffect, useRef } from 'react';
import { useAppState, useReady, useStoreApi, useT } from '../app/hooks';
import { AsideNotice } from './AsideNotice';
import { PromptInput } from './PromptInput';
import { Transcript } from './Transcript';
import { useCurrentLesson, useLessonTarget } from '../views/lesson/hooks';

export const ConsolePanel = memo(function ConsolePanel() {
  const t = useT();
  const store = useStoreApi();
  const input = useRef<HTMLTextAreaElement>(null);
  const ready = useReady();
  const blocked = useAppState((s) => s.blocked !== null);
  const target = useLessonTarget('console');
  // Beside a lesson the console is a terminal and no more: its title is
  // read out, not shown, and Clear sits at the end of the prompt line; with
  // nothing typed or run yet it is its prompt line alone (styles.css), its
  // height left to the lesson and the views.
  const compact = useCurrentLesson() !== null;
  // A command waiting for its busy script is something to show.
  const empty = useAppState((s) => s.console.length === 0 && s.blocked === null);
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
  const clear = (
    <button type="button" className="btn ghost small" data-testid="console.clear" onClick={() => store.clearConsole()}>
      {t('console.clear')}
    </button>
  );
  return (
    <section className={`panel console ${empty ? 'empty' : ''}`} aria-labelledby="console-title"
      data-empty={empty ? 'yes' : 'no'} {...target}>
      <header className={compact ? 'sr-only' : 'panel-head'}>
        <h2 id="console-title">{t('console.title')}</h2>
        {compact ? null : clear}
      </header>
      {compact ? null : <p className="panel-hint">{t('console.hint')}</p>}
      <AsideNotice />
      <div className="terminal" onClick={focusInput}>
        <Transcript />
        {blocked ? <p className="console-blocked" role="status" data-testid="console.blocked">{t('console.blocked')}</p> : null}
        <PromptInput inputRef={input}>{compact && !empty ? clear : null}</PromptInput>
      </div>
    </section>
  );
});
