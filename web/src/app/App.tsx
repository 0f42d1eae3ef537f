import { memo } from 'react';
import { ConsolePanel } from '../console/ConsolePanel';
import { CrashDialog } from '../shell/CrashDialog';
import { Header } from '../shell/Header';
import { StatusBar } from '../shell/StatusBar';
import { HashTablePanel } from '../views/ht/HashTablePanel';
import { useCurrentLesson } from '../views/lesson/hooks';
import { LessonPanel } from '../views/lesson/LessonPanel';
import { LessonPicker } from '../views/lesson/LessonPicker';
import { ScanPanel } from '../views/scan/ScanPanel';

export const App = memo(function App() {
  const lesson = useCurrentLesson();
  const shows = (v: 'console' | 'ht' | 'scan') => !lesson || lesson.views.includes(v);
  return (
    <div className="app">
      <Header />
      <StatusBar />
      <main className={`layout ${lesson ? 'with-lesson' : ''}`}>
        <div className="side">
          {lesson ? <LessonPanel /> : null}
          {shows('console') ? <ConsolePanel /> : null}
        </div>
        <div className="views">
          {shows('ht') ? <HashTablePanel /> : null}
          {shows('scan') ? <ScanPanel /> : null}
        </div>
      </main>
      <LessonPicker />
      <CrashDialog />
    </div>
  );
});
