import { memo } from 'react';
import { useT } from '../../app/hooks';
import { useLesson, useLessonApi } from './hooks';

/** Opens the list of lessons. */
export const LessonsButton = memo(function LessonsButton() {
  const t = useT();
  const runner = useLessonApi();
  const open = useLesson((s) => s.pickerOpen);
  return (
    <button type="button" className="btn" data-testid="lessons.open" aria-haspopup="dialog" aria-expanded={open}
      onClick={() => runner.setPicker(true)}>
      <BookIcon /> {t('lessons.open')}
    </button>
  );
});

function BookIcon() {
  return (
    <svg width={16} height={16} viewBox="0 0 16 16" aria-hidden="true" focusable="false">
      <path d="M2 3.2C3.8 2.4 6 2.5 7.5 3.6v9.6C6 12.1 3.8 12 2 12.8zM14 3.2c-1.8-.8-4-.7-5.5.4v9.6c1.5-1.1 3.7-1.2 5.5-.4z"
        fill="currentColor" />
    </svg>
  );
}
