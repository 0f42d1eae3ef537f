import type { WorkloadPreset } from '../../../../wasm/protocol';
import type { Translate } from '../../i18n';

/** A client program's name as the page shows it: its preset's, except
 *  that a monitor sending something other than INFO is named by what it
 *  sends ("SCRIPT KILL monitor"). */
export function programName(t: Translate, preset: WorkloadPreset, command?: string): string {
  if (preset === 'monitor' && command && command.toUpperCase() !== 'INFO') return t('wl.monitorOf', { command });
  return t(`wl.preset.${preset}`);
}
