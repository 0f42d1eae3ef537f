import { memo, useCallback, useState } from 'react';
import { useT } from '../app/hooks';
import { ShareIcon } from './icons';
import { ShareDialog } from './ShareDialog';

/** Opens the share dialog (link, embed code, file). */
export const ShareButton = memo(function ShareButton() {
  const t = useT();
  const [open, setOpen] = useState(false);
  const close = useCallback(() => setOpen(false), []);
  return (
    <>
      <button type="button" className="btn icon-text" data-testid="share.open" aria-haspopup="dialog" aria-expanded={open}
        title={t('share.title')} onClick={() => setOpen(true)}>
        <ShareIcon /> <span className="btn-label">{t('share.button')}</span>
      </button>
      {open ? <ShareDialog onClose={close} /> : null}
    </>
  );
});
