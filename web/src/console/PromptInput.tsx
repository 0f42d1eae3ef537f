import { memo, useCallback, useRef, useState, type KeyboardEvent, type ReactNode, type RefObject, type ClipboardEvent } from 'react';
import { promptFor } from '../../../wasm/protocol';
import { usePresenter } from '../app/contexts';
import { useAppState, useReady, useStoreApi, useT } from '../app/hooks';
import { HistoryCursor } from './history';
import { useLessonTarget } from '../views/lesson/hooks';

/** The input line: Enter sends, Shift+Enter adds a line, Escape clears it,
 *  Up/Down walk the history, a paste of several lines is sent at once as
 *  one write. `children` go at the end of the line (a button). */
export const PromptInput = memo(function PromptInput({ inputRef, children }: {
  inputRef: RefObject<HTMLTextAreaElement | null>;
  children?: ReactNode;
}) {
  const t = useT();
  const store = useStoreApi();
  const ready = useReady();
  // A second connection starts in db 0, as a new redis-cli does.
  const prompt = useAppState((s) => (s.blocked === null ? s.snapshot?.prompt : null) ?? promptFor(0));
  const history = useAppState((s) => s.history);
  const blocked = useAppState((s) => s.blocked !== null);
  const [text, setText] = useState('');
  const cursor = useRef(new HistoryCursor());
  const target = useLessonTarget('console.input');
  // Presenter mode's type leaves the sandbox's prompt line room for a word
  // after redis-cli's prompt, not for a sentence.
  const presenting = usePresenter((s) => s.on);

  const submit = useCallback((value: string) => {
    cursor.current.reset();
    setText('');
    if (/^\s*clear\s*$/i.test(value)) {
      store.clearConsole();
      return;
    }
    if (!value.trim()) return;
    void store.runConsole(value);
  }, [store]);

  const onKeyDown = useCallback((e: KeyboardEvent<HTMLTextAreaElement>) => {
    const el = e.currentTarget;
    if (e.key === 'Enter' && !e.shiftKey) {
      e.preventDefault();
      submit(el.value);
    } else if (e.key === 'Escape' && el.value) {
      e.preventDefault();
      cursor.current.reset();
      setText('');
    } else if (e.key === 'l' && e.ctrlKey) {
      e.preventDefault();
      store.clearConsole();
    } else if (e.key === 'ArrowUp' && !el.value.slice(0, el.selectionStart).includes('\n')) {
      const v = cursor.current.older(history, el.value);
      if (v !== null) {
        e.preventDefault();
        setText(v);
      }
    } else if (e.key === 'ArrowDown' && !el.value.slice(el.selectionEnd).includes('\n')) {
      const v = cursor.current.newer(history);
      if (v !== null) {
        e.preventDefault();
        setText(v);
      }
    }
  }, [history, store, submit]);

  const onPaste = useCallback((e: ClipboardEvent<HTMLTextAreaElement>) => {
    const pasted = e.clipboardData.getData('text');
    if (!pasted.includes('\n')) return;
    e.preventDefault();
    const el = e.currentTarget;
    submit(el.value.slice(0, el.selectionStart) + pasted + el.value.slice(el.selectionEnd));
  }, [submit]);

  const rows = Math.min(8, text.split('\n').length);
  return (
    <div className={`prompt-line${blocked ? ' second' : ''}`} {...target}>
      {blocked ? <span className="entry-badge" data-testid="console.secondBadge">{t('console.source.second')}</span> : null}
      <label className="prompt" htmlFor="console-input" data-testid="console.prompt">{prompt}</label>
      <textarea
        id="console-input"
        ref={inputRef}
        className="prompt-input"
        data-testid="console.input"
        aria-label={t(blocked ? 'console.secondLabel' : 'console.label')}
        placeholder={t(presenting ? 'console.placeholderShort' : 'console.placeholder')}
        spellCheck={false}
        autoCapitalize="off"
        autoComplete="off"
        autoCorrect="off"
        rows={rows}
        value={text}
        disabled={!ready}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={onKeyDown}
        onPaste={onPaste}
      />
      {children}
    </div>
  );
});
