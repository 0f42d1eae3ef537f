import { memo, useEffect, useState, type FormEvent } from 'react';
import { useT } from '../../app/hooks';
import { INSPECT_KEY_MAX, setInspected } from '../../app/pane';

/** The key's name: typed, then Enter (or the button). An empty name is
 *  refused with a word, not sent. */
export const KeyPicker = memo(function KeyPicker({ current }: { current: string | null }) {
  const t = useT();
  const [text, setText] = useState(current ?? '');
  const [empty, setEmpty] = useState(false);
  // A key opened from elsewhere (the hash table, a link) shows its name.
  useEffect(() => {
    if (current !== null) setText(current);
  }, [current]);
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    if (text === '') {
      setEmpty(true);
      return;
    }
    setEmpty(false);
    setInspected(text);
  };
  return (
    <form className="inspect-picker" onSubmit={onSubmit} role="search">
      <label htmlFor="inspect-key">{t('inspect.field')}</label>
      <input id="inspect-key" type="text" value={text} maxLength={INSPECT_KEY_MAX} spellCheck={false} autoComplete="off"
        placeholder={t('inspect.placeholder')} data-testid="inspect.key" aria-invalid={empty}
        aria-describedby={empty ? 'inspect-key-empty' : undefined}
        onChange={(e) => {
          setText(e.target.value);
          if (e.target.value !== '') setEmpty(false);
        }} />
      <button type="submit" className="btn primary" data-testid="inspect.go">{t('inspect.go')}</button>
      {empty ? <span id="inspect-key-empty" className="inspect-bad" role="alert" data-testid="inspect.emptyName">{t('inspect.empty')}</span> : null}
    </form>
  );
});
