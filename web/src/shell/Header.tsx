import { memo } from 'react';
import { useT } from '../app/hooks';
import { LessonsButton } from '../views/lesson/LessonsButton';
import { HistoryBar } from './HistoryBar';
import { LangSwitch } from './LangSwitch';
import { PresenterButton } from './PresenterButton';
import { ShareButton } from './ShareButton';
import { SessionInfo } from './SessionInfo';
import { TimeControls } from './TimeControls';

export const Header = memo(function Header() {
  const t = useT();
  return (
    <header className="header">
      <div className="brand">
        <span className="brand-mark" aria-hidden="true">
          <span />
          <span />
        </span>
        <span className="brand-text">
          <span className="brand-name">glasskv</span>
          <span className="brand-sub">{t('app.subtitle')}</span>
        </span>
      </div>
      <TimeControls />
      <HistoryBar />
      <div className="header-end">
        <LessonsButton />
        <SessionInfo />
        <ShareButton />
        <PresenterButton />
        <LangSwitch />
      </div>
    </header>
  );
});
