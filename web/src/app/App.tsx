import { memo } from 'react';
import { ConsolePanel } from '../console/ConsolePanel';
import { CrashDialog } from '../shell/CrashDialog';
import { Header } from '../shell/Header';
import { FileDrop } from '../shell/FileDrop';
import { ShareNotice } from '../shell/ShareNotice';
import { ShortcutsDialog } from '../shell/ShortcutsDialog';
import { StatusBar } from '../shell/StatusBar';
import { Tour } from '../shell/Tour';
import { WelcomeDialog } from '../shell/WelcomeDialog';
import { LoopViews } from '../views/loop/LoopViews';
import { HashTablePanel } from '../views/ht/HashTablePanel';
import { InspectPanel } from '../views/inspect/InspectPanel';
import { useCurrentLesson } from '../views/lesson/hooks';
import { LessonPanel } from '../views/lesson/LessonPanel';
import { LessonPicker } from '../views/lesson/LessonPicker';
import { ScanPanel } from '../views/scan/ScanPanel';
import { AofPanel } from '../views/aof/AofPanel';
import { SlabsPanel } from '../views/slabs/SlabsPanel';
import { NetworkPanel } from '../views/net/NetworkPanel';
import { usePane, ViewTabs } from './ViewTabs';

export const App = memo(function App() {
  const lesson = useCurrentLesson();
  const pane = usePane();
  const shows = (v: 'console' | 'ht' | 'scan') => !lesson || lesson.views.includes(v);
  const aofPane = lesson ? lesson.views.includes('aof') : pane === 'aof';
  const keys = lesson !== null || pane === 'keys';
  const loopViews = lesson ? lesson.views.includes('loop') : pane === 'loop';
  const slabsPane = lesson ? lesson.views.includes('slabs') : pane === 'slabs';
  const inspectPane = lesson ? lesson.views.includes('inspect') : pane === 'inspect';
  const netPane = lesson ? lesson.views.includes('network') : pane === 'network';
  // The Slabs pane has its own memcached console: outside a lesson (whose
  // views say what shows) the Redis one would only confuse.
  const slabsAlone = !lesson && slabsPane;
  const consoleShown = shows('console') && !slabsAlone;
  // With a lesson open the side column is the lesson's alone: the console,
  // still next in the page's order, goes under the views (styles.css).
  const layout = ['layout', lesson ? 'with-lesson' : '', lesson && !consoleShown ? 'no-console' : '',
    slabsAlone ? 'views-only' : ''].filter(Boolean).join(' ');
  return (
    <div className="app">
      <Header />
      <StatusBar />
      <ShareNotice />
      <main className={layout}>
        <div className="side">
          {lesson ? <LessonPanel /> : <ViewTabs />}
          {consoleShown ? <ConsolePanel /> : null}
        </div>
        <div className="views">
          {keys && shows('ht') ? <HashTablePanel /> : null}
          {keys && shows('scan') ? <ScanPanel /> : null}
          {inspectPane ? <InspectPanel /> : null}
          {aofPane ? <AofPanel /> : null}
          {netPane ? <NetworkPanel /> : null}
          {slabsPane ? <SlabsPanel /> : null}
          {loopViews ? <LoopViews /> : null}
        </div>
      </main>
      <LessonPicker />
      <CrashDialog />
      <ShortcutsDialog />
      <FileDrop />
      <WelcomeDialog />
      <Tour />
    </div>
  );
});
