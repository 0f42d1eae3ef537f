import { memo } from 'react';
import { usePresenter, usePresenterApi } from '../app/contexts';
import { useT } from '../app/hooks';
import { PresentIcon } from './icons';

/** Presenter mode on or off, and the shortcuts list. */
export const PresenterButton = memo(function PresenterButton() {
  const t = useT();
  const presenter = usePresenterApi();
  const on = usePresenter((s) => s.on);
  return (
    <div className="present-group">
      <button type="button" className={`btn icon-text ${on ? 'on' : ''}`} aria-pressed={on} data-testid="present.toggle"
        title={t('present.hint')} onClick={() => presenter.toggle()}>
        <PresentIcon /> <span className="btn-label">{on ? t('present.exit') : t('present.enter')}</span>
      </button>
      {/* The header is full at 1600 px: the list's own button shows while
          presenting (? opens it at any time). */}
      {on ? (
        <button type="button" className="btn ghost keys-button" data-testid="keys.open" aria-label={t('keys.button')}
          title={t('keys.button')} onClick={() => presenter.setHelp(true)}>
          ?
        </button>
      ) : null}
    </div>
  );
});
