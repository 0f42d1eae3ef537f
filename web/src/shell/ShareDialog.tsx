import { memo, useCallback, useRef, useState } from 'react';
import { useShare, useShareApi } from '../app/contexts';
import { useAppState, useT } from '../app/hooks';
import { embedQuery } from '../app/mode';
import { PANES, getPane, paneOfViews, type Pane } from '../app/pane';
import { copyText, download } from '../share/clipboard';
import { MAX_LINK_CHARS } from '../share/codec';
import { useCurrentLesson } from '../views/lesson/hooks';
import { Modal } from './Modal';

type Status = { kind: 'idle' } | { kind: 'copied' | 'failed'; text: string } | { kind: 'tooLong'; n: number };

export const ShareDialog = memo(function ShareDialog({ onClose }: { onClose: () => void }) {
  const t = useT();
  return (
    <Modal labelledBy="share-title" className="share-dialog" testId="share.dialog" onClose={onClose}>
      <div className="picker-head">
        <h2 id="share-title">{t('share.title')}</h2>
        <button type="button" className="btn ghost small" data-testid="share.close" onClick={onClose}>{t('share.close')}</button>
      </div>
      <LinkSection />
      <EmbedSection />
      <FileSection onDone={onClose} />
    </Modal>
  );
});

/** What a copy gave: the text in a field (to copy by hand if need be). */
function CopyResult({ status, label, okKey, testId, multiline = false }: {
  status: Status; label: string; okKey: 'share.link.copied' | 'share.embed.copied'; testId: string; multiline?: boolean;
}) {
  const t = useT();
  if (status.kind === 'idle') return null;
  if (status.kind === 'tooLong') {
    return <p className="share-msg warn" role="alert" data-testid={`${testId}.tooLong`}>{t('share.link.tooLong', { n: status.n, max: MAX_LINK_CHARS })}</p>;
  }
  const select = (e: { currentTarget: HTMLInputElement | HTMLTextAreaElement }) => e.currentTarget.select();
  return (
    <>
      <p className={`share-msg ${status.kind === 'copied' ? 'ok' : 'warn'}`} role="status" data-testid={`${testId}.status`}>
        {status.kind === 'copied' ? t(okKey) : t('share.link.copyFailed')}
      </p>
      {multiline
        ? <textarea className="share-field" readOnly rows={3} aria-label={label} value={status.text} data-testid={testId} onFocus={select} />
        : <input className="share-field" readOnly aria-label={label} value={status.text} data-testid={testId} onFocus={select} />}
    </>
  );
}

const LinkSection = memo(function LinkSection() {
  const t = useT();
  const share = useShareApi();
  const [status, setStatus] = useState<Status>({ kind: 'idle' });
  const onCopy = useCallback(async () => {
    const link = await share.link();
    if (link.tooLong) return setStatus({ kind: 'tooLong', n: link.url.length });
    setStatus({ kind: (await copyText(link.url)) ? 'copied' : 'failed', text: link.url });
  }, [share]);
  return (
    <section className="share-section" aria-labelledby="share-link-title">
      <h3 id="share-link-title">{t('share.link.title')}</h3>
      <p className="panel-hint">{t('share.link.hint')}</p>
      <div><button type="button" className="btn primary" data-testid="share.link.copy" onClick={() => void onCopy()}>{t('share.link.copy')}</button></div>
      <CopyResult status={status} label={t('share.link.field')} okKey="share.link.copied" testId="share.link.url" />
    </section>
  );
});

function escapeAttr(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}

const EmbedSection = memo(function EmbedSection() {
  const t = useT();
  const share = useShareApi();
  const lang = useAppState((s) => s.lang);
  // The pane being shared: the open lesson's, else the one on screen.
  const lesson = useCurrentLesson();
  const [view, setView] = useState<Pane>(() => (lesson ? paneOfViews(lesson.views) : getPane()));
  const [autoplay, setAutoplay] = useState(false);
  const [status, setStatus] = useState<Status>({ kind: 'idle' });
  const onCopy = useCallback(async () => {
    const { lesson: _, ...state } = share.current();
    const link = await share.link(embedQuery(view, lang, autoplay), { ...state, pane: view });
    if (link.tooLong) return setStatus({ kind: 'tooLong', n: link.url.length });
    const title = t('embed.label', { view: t(`views.tab.${view}`) });
    const code = `<iframe src="${escapeAttr(link.url)}" title="${escapeAttr(title)}" width="960" height="640" style="border:0" loading="lazy" allow="fullscreen; clipboard-write"></iframe>`;
    setStatus({ kind: (await copyText(code)) ? 'copied' : 'failed', text: code });
  }, [share, view, lang, autoplay, t]);
  return (
    <section className="share-section" aria-labelledby="share-embed-title">
      <h3 id="share-embed-title">{t('share.embed.title')}</h3>
      <p className="panel-hint">{t('share.embed.hint')}</p>
      <div className="share-row">
        <label className="share-inline">
          {t('share.embed.view')}
          <select value={view} data-testid="share.embed.view" onChange={(e) => setView(e.target.value as Pane)}>
            {PANES.map((p) => <option key={p} value={p}>{t(`views.tab.${p}`)}</option>)}
          </select>
        </label>
        <label className="share-inline">
          <input type="checkbox" checked={autoplay} data-testid="share.embed.autoplay" onChange={(e) => setAutoplay(e.target.checked)} />
          {t('share.embed.autoplay')}
        </label>
        <button type="button" className="btn" data-testid="share.embed.copy" onClick={() => void onCopy()}>{t('share.embed.copy')}</button>
      </div>
      <CopyResult status={status} label={t('share.embed.field')} okKey="share.embed.copied" testId="share.embed.code" multiline />
    </section>
  );
});

const FileSection = memo(function FileSection({ onDone }: { onDone: () => void }) {
  const t = useT();
  const share = useShareApi();
  const previous = useShare((s) => s.previous);
  const seed = useAppState((s) => s.log.config.seed);
  const picker = useRef<HTMLInputElement>(null);
  const onExport = useCallback(() => {
    const stamp = new Date().toISOString().slice(0, 19).replace(/[:T]/g, '-');
    download(`glasskv-session-${seed}-${stamp}.json`, share.fileText());
  }, [share, seed]);
  const onPick = useCallback(async (files: FileList | null) => {
    const file = files?.[0];
    if (!file) return;
    onDone();
    await share.importFile(file);
  }, [share, onDone]);
  const onRestore = useCallback(() => {
    onDone();
    void share.restorePrevious();
  }, [share, onDone]);
  return (
    <section className="share-section" aria-labelledby="share-file-title">
      <h3 id="share-file-title">{t('share.file.title')}</h3>
      <p className="panel-hint">{t('share.file.hint')}</p>
      <div className="share-row">
        <button type="button" className="btn" data-testid="share.file.export" onClick={onExport}>{t('share.file.export')}</button>
        <button type="button" className="btn" data-testid="share.file.import" onClick={() => picker.current?.click()}>{t('share.file.import')}</button>
        <input ref={picker} type="file" accept=".json,application/json" hidden data-testid="share.file.input"
          onChange={(e) => void onPick(e.target.files)} />
        {previous !== null ? (
          <button type="button" className="btn ghost" data-testid="share.previous" onClick={onRestore}>{t('share.previous', { n: previous })}</button>
        ) : null}
      </div>
    </section>
  );
});
