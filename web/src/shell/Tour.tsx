import { memo, useLayoutEffect, useState, useSyncExternalStore, type CSSProperties } from 'react';
import { endTour, getGuide, subscribeGuide, tourTo } from '../app/guide';
import { useT } from '../app/hooks';
import { Modal } from './Modal';

/** The tour's stops: a part of the page and what to say about it. A stop
 *  whose part is not on the page (no console beside the Slabs pane, no
 *  tabs in a lesson) is left out. */
const STOPS = [
  { target: '.app > .header .time', key: 'time' },
  { target: '[data-testid="history"]', key: 'history' },
  { target: '.view-tabs', key: 'tabs' },
  { target: '.side > .console', key: 'console' },
  { target: '[data-testid="lessons.open"]', key: 'lessons' },
] as const;

const GAP = 12;

/** The tour of the page, one stop at a time, in a dialog beside the part it
 *  is about (which is outlined and brought into sight). Enter moves on,
 *  Escape ends it. */
export const Tour = memo(function Tour() {
  const stop = useSyncExternalStore(subscribeGuide, () => getGuide().tour);
  if (stop === null) return null;
  return <TourStop stop={stop} />;
});

function TourStop({ stop }: { stop: number }) {
  const t = useT();
  const stops = STOPS.filter((s) => document.querySelector(s.target));
  const k = Math.min(stop, stops.length - 1);
  const s = stops[k];
  const last = k === stops.length - 1;
  // Unseen until placed (but focusable: the Next button takes the focus).
  const [style, setStyle] = useState<CSSProperties>({ top: 0, left: 0, opacity: 0 });
  useLayoutEffect(() => {
    const el = s ? document.querySelector<HTMLElement>(s.target) : null;
    if (!el) return;
    el.setAttribute('data-tour-focus', 'on');
    el.scrollIntoView({ block: 'nearest' });
    const place = () => {
      const dialog = document.querySelector<HTMLElement>('[data-testid="tour.dialog"]');
      if (!dialog) return;
      const r = el.getBoundingClientRect();
      const w = dialog.offsetWidth;
      const h = dialog.offsetHeight;
      const vw = document.documentElement.clientWidth;
      const vh = window.innerHeight;
      // Below the part, else above it, else beside it (a tall part such as
      // the console), else over its lower end (a phone's narrow screen).
      const clampTop = (y: number) => Math.min(Math.max(GAP, y), Math.max(GAP, vh - h - GAP));
      const clampLeft = (x: number) => Math.min(Math.max(GAP, x), Math.max(GAP, vw - w - GAP));
      let at: { top: number; left: number };
      if (r.bottom + GAP + h <= vh) at = { top: r.bottom + GAP, left: clampLeft(r.left) };
      else if (r.top - GAP - h >= 0) at = { top: r.top - GAP - h, left: clampLeft(r.left) };
      else if (r.right + GAP + w <= vw) at = { top: clampTop(r.top), left: r.right + GAP };
      else if (r.left - GAP - w >= 0) at = { top: clampTop(r.top), left: r.left - GAP - w };
      else at = { top: clampTop(vh - h - GAP), left: clampLeft(r.left) };
      setStyle({ ...at, opacity: 1 });
    };
    place();
    window.addEventListener('resize', place);
    window.addEventListener('scroll', place, true);
    return () => {
      el.removeAttribute('data-tour-focus');
      window.removeEventListener('resize', place);
      window.removeEventListener('scroll', place, true);
    };
  }, [s, t]);
  if (!s) return null;
  return (
    <Modal labelledBy="tour-title" className="tour" overlayClassName="overlay tour-overlay" testId="tour.dialog"
      onClose={endTour} style={style}>
      <div data-stop={s.key}>
        <p className="tour-of" data-testid="tour.of">{t('tour.of', { k: k + 1, n: stops.length })}</p>
        <h2 id="tour-title">{t(`tour.${s.key}.title`)}</h2>
        <p className="tour-text">{t(`tour.${s.key}.text`)}</p>
        <div className="dialog-actions">
          {k > 0 ? (
            <button key="back" type="button" className="btn" data-testid="tour.back" onClick={() => tourTo(k - 1)}>
              {t('tour.back')}
            </button>
          ) : null}
          <button key="next" type="button" className="btn primary" data-testid="tour.next"
            onClick={last ? endTour : () => tourTo(k + 1)}>
            {last ? t('tour.done') : t('tour.next')}
          </button>
          <button key="skip" type="button" className="btn ghost" data-testid="tour.skip" onClick={endTour}>
            {t('tour.skip')}
          </button>
        </div>
      </div>
    </Modal>
  );
}
