import { memo, useCallback } from 'react';
import { useShare, useShareApi } from '../app/contexts';
import { useT } from '../app/hooks';
import type { MessageKey } from '../i18n';
import { MAX_VIRTUAL_HOURS } from '../share/validate';

/** What opening a link or a file did (or why it could not), with a way
 *  back to the session that was put aside. */
export const ShareNotice = memo(function ShareNotice() {
  const t = useT();
  const share = useShareApi();
  const notice = useShare((s) => s.notice);
  const onRestore = useCallback(() => void share.restorePrevious(), [share]);
  if (!notice) return null;
  let text: string;
  let tone = 'info';
  let restore = false;
  if (notice.kind === 'error') {
    const why = t(notice.key as MessageKey, { detail: notice.detail, hours: MAX_VIRTUAL_HOURS });
    text = t(notice.source === 'link' ? 'share.notice.errorLink' : 'share.notice.errorFile', { why });
    tone = 'error';
  } else if (notice.kind === 'restored') {
    text = t('share.notice.restored', { n: notice.entries });
  } else {
    const parts = [t(notice.source === 'link' ? 'share.notice.openedLink' : 'share.notice.openedFile', { n: notice.entries })];
    if (notice.previous !== null) parts.push(t('share.notice.putAside', { n: notice.previous }));
    if (notice.lessonMissing) parts.push(t('share.notice.lessonMissing'));
    text = parts.join(' ');
    restore = notice.previous !== null;
  }
  return (
    <div className={`notice ${tone}`} role={tone === 'error' ? 'alert' : 'status'} data-testid="share.notice" data-kind={notice.kind}>
      <span>{text}</span>
      {restore ? (
        <button type="button" className="btn small" data-testid="share.notice.restore" onClick={onRestore}>{t('share.notice.restore')}</button>
      ) : null}
      <button type="button" className="btn ghost small" data-testid="share.notice.dismiss" onClick={() => share.dismiss()}>
        {t('share.notice.dismiss')}
      </button>
    </div>
  );
});
