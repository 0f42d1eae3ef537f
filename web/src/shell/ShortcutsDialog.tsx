import { memo, useCallback } from 'react';
import { usePresenter, usePresenterApi } from '../app/contexts';
import { useT } from '../app/hooks';
import { SHORTCUTS } from '../app/shortcuts';
import { Modal } from './Modal';

/** The list of keyboard shortcuts (? opens and closes it). */
export const ShortcutsDialog = memo(function ShortcutsDialog() {
  const t = useT();
  const presenter = usePresenterApi();
  const open = usePresenter((s) => s.help);
  const close = useCallback(() => presenter.setHelp(false), [presenter]);
  if (!open) return null;
  return (
    <Modal labelledBy="keys-title" className="keys-dialog" testId="keys.dialog" onClose={close}>
      <div className="picker-head">
        <h2 id="keys-title">{t('keys.title')}</h2>
        <button type="button" className="btn ghost small" data-testid="keys.close" onClick={close}>{t('share.close')}</button>
      </div>
      <p className="panel-hint">{t('keys.hint')}</p>
      <table className="keys-table">
        <tbody>
          {SHORTCUTS.map((s) => (
            <tr key={s.what}>
              <th scope="row">{s.keys.map((k) => <kbd key={k}>{k}</kbd>)}</th>
              <td>{t(s.what)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </Modal>
  );
});
