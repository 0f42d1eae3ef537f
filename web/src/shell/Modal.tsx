import { memo, useCallback, useEffect, useRef, type CSSProperties, type KeyboardEvent, type ReactNode } from 'react';

interface Props {
  /** The id of the element that names the dialog. */
  labelledBy: string;
  className?: string;
  testId: string;
  onClose: () => void;
  children: ReactNode;
  /** The backdrop's class (a dimmed, centring one unless told). */
  overlayClassName?: string;
  /** Where the dialog sits, when not in the middle (a tour's stop). */
  style?: CSSProperties;
}

const FOCUSABLE = 'button:not(:disabled), a[href], input:not(:disabled), select:not(:disabled), textarea:not(:disabled)';

/** The controls Tab can reach inside `box`: a control that is not rendered
 *  (the Share dialog's hidden file input, display: none) takes no focus,
 *  so counting it as the last one would let Tab leave the dialog. */
function focusables(box: HTMLElement): HTMLElement[] {
  return [...box.querySelectorAll<HTMLElement>(FOCUSABLE)].filter((el) => el.getClientRects().length > 0);
}

/** A modal dialog: focus moves in (to its first primary button, else its
 *  first control) and back out when it closes; Tab stays inside; Escape
 *  or a click outside closes it. */
export const Modal = memo(function Modal({
  labelledBy, className = '', testId, onClose, children, overlayClassName = 'overlay', style,
}: Props) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const before = document.activeElement as HTMLElement | null;
    const d = box.current;
    if (d) (d.querySelector<HTMLElement>('.btn.primary') ?? focusables(d)[0])?.focus();
    return () => before?.focus();
  }, []);
  const onKeyDown = useCallback((e: KeyboardEvent) => {
    if (e.key === 'Escape') {
      e.stopPropagation();
      onClose();
    } else if (e.key === 'Tab' && box.current) {
      const items = focusables(box.current);
      if (!items.length) return;
      const first = items[0];
      const last = items[items.length - 1];
      if (e.shiftKey && document.activeElement === first) {
        e.preventDefault();
        last.focus();
      } else if (!e.shiftKey && document.activeElement === last) {
        e.preventDefault();
        first.focus();
      }
    }
  }, [onClose]);
  return (
    <div className={overlayClassName} onMouseDown={(e) => e.target === e.currentTarget && onClose()}>
      <div className={`dialog ${className}`} role="dialog" aria-modal="true" aria-labelledby={labelledBy}
        data-testid={testId} ref={box} onKeyDown={onKeyDown} style={style}>
        {children}
      </div>
    </div>
  );
});
