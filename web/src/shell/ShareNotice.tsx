import { memo, useCallback } from 'react';
import { useShare, useShareApi } from '../app/contexts';
import { useAppState, useT } from '../app/hooks';
import { download } from '../share/clipboard';
import type { MessageKey } from '../i18n';
import { MAX_VIRTUAL_HOURS } from '../share/validate';

/** What opening a link or a file did (or why it could not), with a way
 *  back to the session that was put aside. */
export const ShareNotice = memo(function ShareNotice() {
  const t = useT();
  const share = useShareApi();
  const notice = useShare((s) => s.notice);
  const onRestore = useCallback(() => void share.restorePrevious(), [share]);
  const seed = useAppState((s) => s.log.config.seed);
  const onExport = useCallback(() => {
    const stamp = new Date().toISOString().slice(0, 19).replace(/[:T]/g, '-');
    download(`glasskv-session-${seed}-${stamp}.json`, share.fileText());
  }, [share, seed]);
  if (!notice) return null;
  let text: string;
  let tone = 'info';
  let restore = false;
  let exportOwn = false;
  if (notice.kind === 'error') {
    const why = t(notice.key as MessageKey, { detail: notice.detail, hours: MAX_VIRTUAL_HOURS });
    text = t(notice.source === 'link' ? 'share.notice.errorLink' : 'share.notice.errorFile', { why });
    tone = 'error';
    exportOwn = notice.key === 'share.err.storage';
  } else if (notice.kind === 'restored') {
    const parts = [t('share.notice.restored', { n: notice.entries })];
    if (notice.swapped) parts.push(t('share.notice.swapped'));
    else if (notice.dropped) parts.push(t('share.notice.dropped'));
    text = parts.join(' ');
  } else {
    const parts = [t(notice.source === 'link' ? 'share.notice.openedLink' : 'share.notice.openedFile', { n: notice.entries })];
    if (notice.replacedOpened) parts.push(t('share.notice.replacedOpened'));
    if (notice.putAside !== null) parts.push(t('share.notice.putAside', { n: notice.putAside }));
    else if (notice.stillAside !== null) parts.push(t('share.notice.stillAside', { n: notice.stillAside }));
    if (notice.lessonMissing) parts.push(t('share.notice.lessonMissing'));
    text = parts.join(' ');
    restore = notice.putAside !== null || notice.stillAside !== null;
  }
  return (
    <div className={`notice ${tone}`} role={tone === 'error' ? 'alert' : 'status'} data-testid="share.notice" data-kind={notice.kind}>
      <span>{text}</span>
      {restore ? (
        <button type="button" className="btn small" data-testid="share.notice.restore" onClick={onRestore}>{t('share.notice.restore')}</button>
      ) : null}
      {exportOwn ? (
        <button type="button" className="btn small" data-testid="share.notice.export" onClick={onExport}>{t('share.notice.export')}</button>
      ) : null}
      <button type="button" className="btn ghost small" data-testid="share.notice.dismiss" onClick={() => share.dismiss()}>
        {t('share.notice.dismiss')}
      </button>
    </div>
  );
});
