import { memo } from 'react';
import type { AofView } from '../../../../wasm/aofprotocol';
import { useFormatNumber, useT } from '../../app/hooks';
import { useLessonTarget } from '../lesson/hooks';
import { STAGES, STAGE_COLORS } from './model';

/** The four offsets of the AOF stream now, and aof_buf. */
export const StageBar = memo(function StageBar({ view }: { view: AofView }) {
  const t = useT();
  const num = useFormatNumber();
  const info = view.info;
  const target = useLessonTarget('aof.stages');
  if (!info) return null;
  return (
    <div className="aof-stages" {...target}>
      <ul className="legend">
        {STAGES.map((k) => (
          <li key={k} data-testid={`aof.stage.${k}`}>
            <span className="swatch" style={{ background: STAGE_COLORS[k] }} aria-hidden="true" />
            {t(`aof.stage.${k}`)}: <code>{num(info[k])}</code>
          </li>
        ))}
      </ul>
      <p data-testid="aof.buf">
        <span className="swatch" style={{ background: STAGE_COLORS.buf }} aria-hidden="true" />
        {t('aof.bufNow', { n: info.bufferLength })}
        {info.flushPostponedStart !== 0 ? <strong className="warn"> · {t('aof.postponed')}</strong> : null}
        {info.delayedFsync ? <span className="dim"> · {t('aof.delayed', { n: info.delayedFsync })}</span> : null}
      </p>
    </div>
  );
});
