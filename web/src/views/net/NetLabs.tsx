import { memo } from 'react';
import { REPL_LAB_NAMES, type LabDelivery, type LabView } from '../../../../wasm/protocol';
import { useAppState, useT } from '../../app/hooks';
import type { MessageKey, Translate } from '../../i18n';
import { useLessonTarget } from '../lesson/hooks';
import { useLoop } from '../loop/hooks';
import { LabRow } from '../loop/LabsPanel';
import { parseReplLab, spread } from './model';

type ReplLabName = (typeof REPL_LAB_NAMES)[number];

/** Milliseconds to 3 decimals, as labs.c prints them. */
const ms3 = (ms: number | null | undefined) => (ms === null || ms === undefined ? '…' : ms.toFixed(3));

/** Seed 003's labs: live in this world (ten replicas of the page's server
 *  on a machine of two shared CPUs, a MONITOR on each; one SET, then an
 *  MSET under load) with each replica's delivery time as the trace shows
 *  it, or headless for the figures of fresh worlds, with and without the
 *  MONITORs. */
export const NetLabs = memo(function NetLabs() {
  const t = useT();
  const target = useLessonTarget('network.labs');
  const lab = useAppState((s) => s.snapshot?.lab ?? null);
  const shown = useLoop((s) => (s.labShown && isReplLab(s.labShown) ? s.labShown : null));
  const run = useLoop((s) => (shown ? s.labRuns[shown] : undefined));
  const live = lab && isReplLab(lab.name) ? lab : null;
  return (
    <div className="net-labs" data-testid="net.labs" {...target}>
      <h3>{t('netLab.title')}</h3>
      <p className="dim">{t('netLab.sub')}</p>
      <ul className="lab-list">
        {REPL_LAB_NAMES.map((name) => <LabRow key={name} name={name} />)}
      </ul>
      {live ? <LiveDeliveries lab={live} /> : null}
      {shown && run && 'json' in run ? <Figures name={shown} json={run.json} /> : null}
      {shown && run && 'error' in run ? <p className="warn">{t('lab.error', { msg: run.error })}</p> : null}
    </div>
  );
});

function isReplLab(name: string): name is ReplLabName {
  return (REPL_LAB_NAMES as readonly string[]).includes(name);
}

/** The lab running in this world: its part, and per replica how long each
 *  timed write took to reach it, from the master (and, in the chain, from
 *  the server it follows). */
const LiveDeliveries = memo(function LiveDeliveries({ lab }: { lab: LabView }) {
  const t = useT();
  const chain = lab.name === 'replication-chain';
  const parts = lab.deliveries;
  return (
    <div className="net-lab-live" data-testid="net.lab.live" data-part={lab.part} data-done={lab.done ? 'yes' : 'no'}>
      <p className="lab-status" role="status">
        {lab.done
          ? t('lab.partDone', { name: t(`lab.name.${lab.name}`), n: lab.parts })
          : `${t('lab.part', { name: t(`lab.name.${lab.name}`), k: lab.part + 1, n: lab.parts })}: ${partText(t, lab.partName)}`}
      </p>
      {parts.length ? (
        <div className="net-scroll">
          <table className="net-table net-deliveries" data-testid="net.deliveries">
            <caption className="dim">{t(chain ? 'netLab.caption.chain' : 'netLab.caption.star')}</caption>
            <thead>
              <tr>
                <th scope="col">{t('net.col.port')}</th>
                <th scope="col">{t('netLab.col.follows')}</th>
                {parts.map((d) => (
                  <DeliveryHeads key={d.part} d={d} chain={chain} />
                ))}
              </tr>
            </thead>
            <tbody>
              {parts[0].replicas.map((r, i) => (
                <tr key={r.port} data-testid={`net.delivery.${r.port}`}>
                  <th scope="row">{r.port}</th>
                  <td>:{r.follows}</td>
                  {parts.map((d) => (
                    <DeliveryCells key={d.part} r={d.replicas[i]} chain={chain} />
                  ))}
                </tr>
              ))}
            </tbody>
            <tfoot>
              {(['min', 'avg', 'max'] as const).map((k) => (
                <tr key={k} data-testid={`net.delivery.${k}`}>
                  <th scope="row" colSpan={2}>{t(`netLab.${k}`)}</th>
                  {parts.map((d) => {
                    const total = spread(d.replicas.map((r) => r.ms));
                    const hop = spread(d.replicas.map((r) => r.hopMs));
                    return [
                      <td key={`${d.part}.ms`} className="num">{ms3(total?.[k])}</td>,
                      chain ? <td key={`${d.part}.hop`} className="num">{ms3(hop?.[k])}</td> : null,
                    ];
                  })}
                </tr>
              ))}
            </tfoot>
          </table>
        </div>
      ) : null}
      <p className="net-note" data-testid="net.lab.article">{t(chain ? 'netLab.article.chain' : 'netLab.article.star')}</p>
    </div>
  );
});

const PART_KEYS: Record<string, MessageKey> = {
  sync: 'netLab.part.sync', idle: 'netLab.part.idle', load: 'netLab.part.load', loaded: 'netLab.part.loaded',
};

function partText(t: Translate, name: string): string {
  return PART_KEYS[name] ? t(PART_KEYS[name]) : name;
}

function DeliveryHeads({ d, chain }: { d: LabDelivery; chain: boolean }) {
  const t = useT();
  const what = t(d.part === 'idle' ? 'netLab.col.idle' : 'netLab.col.loaded', { cmd: d.command });
  return (
    <>
      <th scope="col" className="num">{what}</th>
      {chain ? <th scope="col" className="num">{t('netLab.col.hop')}</th> : null}
    </>
  );
}

function DeliveryCells({ r, chain }: { r: LabDelivery['replicas'][number]; chain: boolean }) {
  return (
    <>
      <td className="num">{ms3(r.ms)}</td>
      {chain ? <td className="num">{ms3(r.hopMs)}</td> : null}
    </>
  );
}

/** A headless run's figures: each run's fastest, mean and slowest. */
const Figures = memo(function Figures({ name, json }: { name: ReplLabName; json: string }) {
  const t = useT();
  const runs = parseReplLab(json);
  return (
    <div className="net-scroll">
      <table className="net-table" data-testid={`net.lab.${name}.table`}>
        <caption className="dim">{t('netLab.figures', { name })}</caption>
        <thead>
          <tr>
            <th scope="col">{t('lab.col.run')}</th>
            <th scope="col" className="num">{t('netLab.min')}</th>
            <th scope="col" className="num">{t('netLab.avg')}</th>
            <th scope="col" className="num">{t('netLab.max')}</th>
          </tr>
        </thead>
        <tbody>
          {runs.map((r) => (
            <tr key={r.name}>
              <th scope="row">{r.name}</th>
              <td className="num">{ms3(r.min)}</td>
              <td className="num">{ms3(r.avg)}</td>
              <td className="num">{ms3(r.max)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
});
