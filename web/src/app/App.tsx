import { memo } from 'react';
import { ConsolePanel } from '../console/ConsolePanel';
import { CrashDialog } from '../shell/CrashDialog';
import { Header } from '../shell/Header';
import { StatusBar } from '../shell/StatusBar';
import { HashTablePanel } from '../views/ht/HashTablePanel';
import { ScanPanel } from '../views/scan/ScanPanel';

export const App = memo(function App() {
  return (
    <div className="app">
      <Header />
      <StatusBar />
      <main className="layout">
        <ConsolePanel />
        <div className="views">
          <HashTablePanel />
          <ScanPanel />
        </div>
      </main>
      <CrashDialog />
    </div>
  );
});
