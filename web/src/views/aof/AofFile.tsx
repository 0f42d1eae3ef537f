import { memo } from 'react';
import type { AofView } from '../../../../wasm/aofprotocol';
import { useT } from '../../app/hooks';
import { useLessonTarget } from '../lesson/hooks';

/** Commands shown from the file's tail. */
const MAX_COMMANDS = 40;

/** The incr file's commands as RESP, each marked durable or only written. */
export const AofFile = memo(function AofFile({ view }: { view: AofView }) {
  const t = useT();
  const f = view.file;
  const buf = view.info?.bufferLength ?? 0;
  const target = useLessonTarget('aof.file');
  if (!f) return null;
  const cmds = f.commands.slice(-MAX_COMMANDS);
  return (
    <div className="aof-file" data-testid="aof.file" {...target}>
      <h3>{t('aof.file')} <span className="dim"><code>{f.path}</code> · {t('aof.fileTail', { n: f.size - f.from, size: f.size })}</span></h3>
      {cmds.length === 0 ? <p className="dim">{t('aof.fileEmpty')}</p> : null}
      <ol className="aof-cmds">
        {cmds.map((c) => (
          <li key={c.start} className={`aof-cmd ${c.stage}`} data-testid={`aof.cmd.${c.stage}`}
            title={`${c.start}–${c.end}`}>
            <code className="resp">{`*${c.argv.length} ${c.argv.map((a) => `$${a.length} ${a}`).join(' ')}`}</code>
            <span className="aof-cmd-stage">{t(`aof.stage.${c.stage}`)}</span>
          </li>
        ))}
        {buf > 0 ? <li className="aof-cmd fed" data-testid="aof.cmd.fed">{t('aof.pendingBuf', { n: buf })}</li> : null}
      </ol>
    </div>
  );
});
