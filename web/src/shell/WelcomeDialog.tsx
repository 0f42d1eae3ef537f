import { memo, useCallback, useSyncExternalStore } from 'react';
import { closeWelcome, getGuide, startTour, subscribeGuide } from '../app/guide';
import { useT } from '../app/hooks';
import { useLessonApi } from '../views/lesson/hooks';
import { LangSwitch } from './LangSwitch';
import { Modal } from './Modal';

/** A first visit's welcome: what the page is, and three ways in (a lesson,
 *  the tour, or the sandbox as it is). Closing it in any way is remembered. */
export const WelcomeDialog = memo(function WelcomeDialog() {
  const t = useT();
  const runner = useLessonApi();
  const open = useSyncExternalStore(subscribeGuide, () => getGuide().welcome);
  const onLessons = useCallback(() => {
    closeWelcome();
    runner.setPicker(true);
  }, [runner]);
  if (!open) return null;
  return (
    <Modal labelledBy="welcome-title" className="welcome" testId="welcome.dialog" onClose={closeWelcome}>
      <div className="picker-head">
        <h2 id="welcome-title">{t('welcome.title')}</h2>
        <LangSwitch idPrefix="welcome.lang" />
      </div>
      <p className="welcome-text">{t('welcome.text')}</p>
      <div className="dialog-actions">
        <button type="button" className="btn primary" data-testid="welcome.lessons" onClick={onLessons}>
          {t('welcome.lessons')}
        </button>
        <button type="button" className="btn" data-testid="welcome.tour" onClick={startTour}>{t('welcome.tour')}</button>
        <button type="button" className="btn ghost" data-testid="welcome.explore" onClick={closeWelcome}>
          {t('welcome.explore')}
        </button>
      </div>
      <p className="panel-hint welcome-later">{t('welcome.later')}</p>
    </Modal>
  );
});
