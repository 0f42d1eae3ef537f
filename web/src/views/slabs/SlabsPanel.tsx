import { memo, useEffect } from 'react';
import { mcCommandLine, type SlabsView } from '../../../../wasm/mcprotocol';
import { useT } from '../../app/hooks';
import { useLessonTarget } from '../lesson/hooks';
import { formatBytes } from '../../model/format';
import { ClassTable } from './ClassTable';
import { FillForm } from './FillForm';
import { useLanding, useSlabsView, type Landing } from './hooks';
import { McConsole } from './McConsole';
import { calcification, idList } from './model';
import { Notes } from './Notes';
import { PagesView } from './PagesView';
import { showClassUnlessChosen } from './selection';
import { SlabLabs } from './SlabLabs';
import { WhatIf } from './WhatIf';
import './slabs.css';

/** What the typed item's landing means, in words. */
const LandingNote = memo(function LandingNote({ view, landing }: { view: SlabsView; landing: Landing }) {
  const t = useT();
  const totals = view.totals!;
  if (landing.cls === 0) {
    return <p className="slabs-landing bad" data-testid="slabs.landing" data-cls={0}>
      {t('slabs.tooLarge', { ntotal: landing.ntotal, max: totals.itemSizeMax })}</p>;
  }
  const c = view.classes[landing.cls - 1];
  if (landing.ntotal > totals.chunkMax) {
    return <p className="slabs-landing" data-testid="slabs.landing" data-cls={landing.cls}>
      {t('slabs.landingLarge', { ntotal: landing.ntotal, cls: landing.cls })}</p>;
  }
  return (
    <p className="slabs-landing" data-testid="slabs.landing" data-cls={landing.cls}>
      {t('slabs.landing', { ntotal: landing.ntotal, cls: landing.cls, chunk: c.chunkSize, pad: c.chunkSize - landing.ntotal })}
    </p>
  );
});

const Calcified = memo(function Calcified({ view }: { view: SlabsView }) {
  const t = useT();
  const c = calcification(view.classes);
  if (!c) return null;
  return (
    <p className="slabs-calc" role="status" data-testid="slabs.calc">
      {t('slabs.calc', { evicting: idList(c.evicting), idle: idList(c.idle), free: c.free })}
    </p>
  );
});

export const SlabsPanel = memo(function SlabsPanel() {
  const target = useLessonTarget('slabs');
  const t = useT();
  const view = useSlabsView();
  const landing = useLanding(view);
  // The pages view opens on the first class that holds a page, not on an
  // empty class 1.
  const firstWithPages = view?.running ? view.classes.find((c) => c.pages > 0)?.id ?? null : null;
  useEffect(() => {
    if (firstWithPages !== null && view && view.classes[view.cls - 1]?.pages === 0) showClassUnlessChosen(firstWithPages);
  }, [firstWithPages, view]);
  const totals = view?.totals ?? null;
  return (
    <section className="panel slabs" aria-labelledby="slabs-title" {...target} data-testid="slabs.panel">
      <header className="panel-head">
        <h2 id="slabs-title">{t('slabs.title')}</h2>
        <span className="panel-sub">{t('slabs.subtitle')}</span>
      </header>
      {view && view.running && totals ? (
        <p className="slabs-status" data-testid="slabs.status" data-items={totals.currItems}
          data-evictions={totals.evictions} data-malloced={totals.totalMalloced}>
          <code>{t('slabs.running', { cmd: mcCommandLine(view.options!) })}</code>{' '}
          {t('slabs.summary', { items: totals.currItems, malloced: formatBytes(totals.totalMalloced),
            limit: formatBytes(totals.limit), evictions: totals.evictions })}
        </p>
      ) : <p className="dim" data-testid="slabs.notStarted">{t('slabs.notStarted')}</p>}
      <div className="slabs-top">
        <McConsole entries={view?.console ?? []} />
        <Notes engineNote={view?.notes ?? ''} />
      </div>
      {view && landing ? <LandingNote view={view} landing={landing} /> : null}
      {view && view.running ? (
        <>
          <Calcified view={view} />
          <div className="slabs-main">
            <ClassTable classes={view.classes} selected={view.cls} landing={landing?.cls ?? null} />
            <PagesView view={view} />
          </div>
        </>
      ) : null}
      <div className="slabs-bottom">
        <WhatIf current={view?.options ?? null} classes={view?.classes.length ?? 0} />
        <FillForm fill={view?.fill ?? null} />
      </div>
      <SlabLabs />
    </section>
  );
});
