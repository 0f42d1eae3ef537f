import { memo } from 'react';
import { ClientsPanel } from './ClientsPanel';
import { RunPanel } from './RunPanel';
import { SequencePanel } from './SequencePanel';
import { TimelinePanel } from './TimelinePanel';
import './loop.css';

/** The event loop made visible: client programs and labs, the timeline,
 *  one connection's round trips, throughput and latencies. */
export const LoopViews = memo(function LoopViews() {
  return (
    <div className="loop-pane" data-testid="loop.pane">
      <RunPanel />
      <TimelinePanel />
      <div className="loop-bottom">
        <SequencePanel />
        <ClientsPanel />
      </div>
    </div>
  );
});
