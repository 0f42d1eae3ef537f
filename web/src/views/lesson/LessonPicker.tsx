import { memo, useCallback } from 'react';
import { useAppState, useT } from '../../app/hooks';
import { catalog } from '../../lessons/catalog';
import type { Lesson } from '../../lessons/types';
import { Modal } from '../../shell/Modal';
import { startTour } from '../../app/guide';
import { MdInlines } from './Markdown';
import { useLesson, useLessonApi } from './hooks';

/** The list of lessons, as a dialog: Escape or a click outside closes it,
 *  and focus returns to where it was. */
export const LessonPicker = memo(function LessonPicker() {
  const t = useT();
  const runner = useLessonApi();
  const open = useLesson((s) => s.pickerOpen);
  const lang = useAppState((s) => s.lang);
  const close = useCallback(() => runner.setPicker(false), [runner]);
  const onTour = useCallback(() => {
    runner.setPicker(false);
    startTour();
  }, [runner]);
  if (!open) return null;
  const lessons = catalog.byLang[lang];
  return (
    <Modal labelledBy="picker-title" className="picker" testId="lessons.picker" onClose={close}>
      <div className="picker-head">
        <h2 id="picker-title">{t('lessons.title')}</h2>
        <button type="button" className="btn ghost small" data-testid="lessons.close" onClick={close}>
          {t('lessons.close')}
        </button>
      </div>
      <p className="picker-intro">{t('lessons.intro')}</p>
      <p className="picker-tour">
        <button type="button" className="btn ghost small" data-testid="lessons.tour" onClick={onTour}>
          {t('tour.open')}
        </button>
      </p>
      {lessons.length ? (
        <ul className="picker-list">
          {lessons.map((l) => <LessonCard key={l.id} lesson={l} />)}
        </ul>
      ) : <p className="dim">{t('lessons.none')}</p>}
      {catalog.broken.map((b) => <p key={b.file} className="lesson-note bad">{t('lessons.broken', { msg: b.message })}</p>)}
    </Modal>
  );
});

function LessonCard({ lesson }: { lesson: Lesson }) {
  const t = useT();
  const runner = useLessonApi();
  const activeId = useLesson((s) => s.active?.id ?? null);
  const progress = runner.progressOf(lesson.id);
  const n = lesson.steps.length;
  const current = activeId === lesson.id;
  const label = current ? t('lessons.current')
    : progress ? t('lessons.continue', { k: progress.step + 1 }) : t('lessons.start');
  return (
    <li className="picker-item" data-testid="lessons.item" data-lesson={lesson.id}>
      <div className="picker-item-text">
        <h3>{lesson.title}</h3>
        <p className="picker-meta">
          <span className="chip">{t(`lessons.level.${lesson.level}`)}</span>
          <span>{t('lessons.steps', { n })}</span>
          {progress ? <span>{t('lessons.progress', { done: progress.completed.length, n })}</span> : null}
        </p>
        {lesson.summary.length ? <p className="picker-summary"><MdInlines nodes={lesson.summary} /></p> : null}
      </div>
      <button type="button" className="btn primary" data-testid="lessons.start" onClick={() => void runner.open(lesson.id)}>
        {label}
      </button>
    </li>
  );
}
