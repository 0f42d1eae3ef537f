import { memo, useCallback, useEffect, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import { MC_SET_MAX, type McConsoleEntry } from '../../../../wasm/mcprotocol';
import { useReady, useStoreApi, useT } from '../../app/hooks';
import { useLessonTarget } from '../lesson/hooks';
import { typedItem } from './model';
import { setTyped } from './selection';


/** Characters of one line shown before it is cut (a 1,000-byte value
 *  would push every earlier line out of the transcript). */
export const LINE_SHOWN = 120;

const encoder = new TextEncoder();

/** One line of the transcript: a long one shows its first LINE_SHOWN
 *  characters and its size, and opens whole on request. */
const Line = memo(function Line({ text }: { text: string }) {
  const t = useT();
  const [open, setOpen] = useState(false);
  if (text.length <= LINE_SHOWN) return <>{text}</>;
  const bytes = encoder.encode(text).length;
  return (
    <>
      {open ? text : text.slice(0, LINE_SHOWN)}
      <button type="button" className="mc-more" aria-expanded={open} data-testid="slabs.line.more"
        title={t(open ? 'slabs.console.less' : 'slabs.console.all')} onClick={() => setOpen((v) => !v)}>
        {open ? t('slabs.console.less') : t('slabs.console.clipped', { n: bytes })}
      </button>
    </>
  );
});

/** A raw reply, its line ends shown as the \r\n they are. */
const Raw = memo(function Raw({ text }: { text: string }) {
  const lines = text.split('\r\n');
  const last = lines.pop();
  return (
    <>
      {lines.map((l, i) => (
        <span key={i} className="mc-line"><Line text={l} /><span className="crlf">\r\n</span>{'\n'}</span>
      ))}
      {last ? <span className="mc-line"><Line text={last} /></span> : null}
    </>
  );
});

const Entry = memo(function Entry({ e }: { e: McConsoleEntry }) {
  const t = useT();
  return (
    <li className="mc-entry">
      <pre className="mc-in">
        {e.input.split('\n').map((l, i) => <span key={i}>{i ? '\n' : ''}<Line text={l} /></span>)}
      </pre>
      <pre className="mc-out" data-testid="slabs.reply">
        {e.output ? <Raw text={e.output} /> : e.input.startsWith('memcached ') ? null
          : <span className="dim">{t('slabs.console.noReply')}</span>}
        {e.bytes > e.output.length ? <span className="dim"> … ({e.bytes} B)</span> : null}
      </pre>
    </li>
  );
});

/** A quick set: a key and a value size, sent as the two protocol lines. */
const QuickSet = memo(function QuickSet() {
  const t = useT();
  const store = useStoreApi();
  const ready = useReady();
  const [key, setKey] = useState('user:1');
  const [size, setSize] = useState('100');
  const n = Number(size);
  const keyOk = /^\S{1,250}$/.test(key);
  const sizeOk = /^\d+$/.test(size) && n <= MC_SET_MAX;
  const valid = keyOk && sizeOk;
  // The landing note describes the item the fields describe now, whatever
  // changed them (typing, the spinner, a paste).
  const [active, setActive] = useState(false);
  useEffect(() => {
    if (active) setTyped(valid ? typedItem(`set ${key} 0 0 ${n}`) : null);
  }, [active, valid, key, n]);
  const mark = useCallback(() => setActive(true), []);
  useEffect(() => () => setTyped(null), []);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!valid) return;
    void store.act({ kind: 'mcSet', key, flags: 0, bytes: n });
  };
  return (
    <form className="slabs-form quick-set" onSubmit={submit} aria-label={t('slabs.quick.title')}>
      <strong className="slabs-form-title">{t('slabs.quick.title')}</strong>
      <label>{t('slabs.quick.key')}
        <input value={key} onChange={(e) => setKey(e.target.value)} onFocus={mark}
          data-testid="slabs.quick.key" spellCheck={false} aria-invalid={!keyOk} />
      </label>
      <label>{t('slabs.quick.size')}
        <input type="number" min={0} max={MC_SET_MAX} value={size} onChange={(e) => setSize(e.target.value)}
          onFocus={mark} data-testid="slabs.quick.size" aria-invalid={!sizeOk} />
      </label>
      <button type="submit" className="btn small" disabled={!ready || !valid} data-testid="slabs.quick.send">
        {t('slabs.quick.send')}
      </button>
      {sizeOk ? <span className="dim small">{t('slabs.quick.hint')}</span> : (
        <span className="warn small" role="alert" data-testid="slabs.quick.why">{t('slabs.quick.tooBig', { max: MC_SET_MAX })}</span>
      )}
    </form>
  );
});

/** Protocol lines typed at the memcached node; the class a set line's
 *  item would land in is marked in the table while it is typed. */
export const McConsole = memo(function McConsole({ entries }: { entries: readonly McConsoleEntry[] }) {
  const target = useLessonTarget('slabs.console');
  const t = useT();
  const store = useStoreApi();
  const ready = useReady();
  const [text, setText] = useState('');
  const list = useRef<HTMLOListElement>(null);
  useEffect(() => {
    const el = list.current;
    if (el) el.scrollTop = el.scrollHeight;
  }, [entries]);
  useEffect(() => () => setTyped(null), []);
  const change = (v: string) => {
    setText(v);
    setTyped(typedItem(v));
  };
  const send = () => {
    if (!text) return;
    void store.act({ kind: 'mcLine', text });
    change('');
  };
  const onKeyDown = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === 'Enter') {
      e.preventDefault();
      send();
    }
  };
  return (
    <section className="slabs-console" aria-labelledby="mc-console-title" {...target}>
      <h3 id="mc-console-title">{t('slabs.console.title')}</h3>
      <p className="dim small">{t('slabs.console.hint')}</p>
      <ol className="mc-transcript" ref={list} data-testid="slabs.transcript" aria-live="polite">
        {entries.length ? entries.map((e, i) => <Entry key={`${e.t}:${i}`} e={e} />)
          : <li className="dim">{t('slabs.console.empty')}</li>}
      </ol>
      <div className="mc-prompt">
        <input className="prompt-input" value={text} onChange={(e) => change(e.target.value)} onKeyDown={onKeyDown}
          aria-label={t('slabs.console.input')} placeholder="set greeting 0 0 5" data-testid="slabs.input"
          spellCheck={false} autoCapitalize="off" autoComplete="off" autoCorrect="off" />
        <button type="button" className="btn small" onClick={send} disabled={!ready || !text} data-testid="slabs.send">
          {t('slabs.console.send')}
        </button>
      </div>
      <QuickSet />
    </section>
  );
});
