import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/App';
import { createApp } from './app/boot';
import { StoreContext } from './app/hooks';
import { LessonContext } from './views/lesson/hooks';
import { LoopContext } from './views/loop/hooks';
import './styles.css';

const { store, lessons, loop } = createApp();
createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <StoreContext.Provider value={store}>
      <LessonContext.Provider value={lessons}>
        <LoopContext.Provider value={loop}>
          <App />
        </LoopContext.Provider>
      </LessonContext.Provider>
    </StoreContext.Provider>
  </StrictMode>,
);
