import { memo, useEffect, useRef } from 'react';
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
  const ref = useStickOffset();
  return (
    <header className="header" ref={ref}>
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

/** How far the header scrolls before it sticks, as --header-stick: to the
 *  row of the time buttons, less the header's own top padding (on a phone
 *  that row comes last, and only it stays in sight; styles.css); and its
 *  height, as --header-h on the page. */
function useStickOffset() {
  const ref = useRef<HTMLElement>(null);
  useEffect(() => {
    const header = ref.current;
    const row = header?.querySelector<HTMLElement>('.time > .rewind');
    if (!header || !row) return;
    const measure = () => {
      const pad = parseFloat(getComputedStyle(header).paddingTop) || 0;
      const offset = Math.max(0, row.getBoundingClientRect().top - header.getBoundingClientRect().top - pad);
      header.style.setProperty('--header-stick', `${offset}px`);
      // The header's whole height, for a layout that fits the rest of the
      // first screen (a lesson on a phone).
      document.documentElement.style.setProperty('--header-h', `${Math.ceil(header.getBoundingClientRect().height)}px`);
    };
    const ro = new ResizeObserver(measure);
    ro.observe(header);
    ro.observe(row);
    return () => ro.disconnect();
  }, []);
  return ref;
}
