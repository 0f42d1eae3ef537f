import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/App';
import { createApp } from './app/boot';
import { PresenterContext, ShareContext } from './app/contexts';
import { EmbedApp } from './app/EmbedApp';
import { registerOffline } from './app/offline';
import { StoreContext } from './app/hooks';
import { LessonContext } from './views/lesson/hooks';
import { LoopContext } from './views/loop/hooks';
import './styles.css';

const { store, lessons, loop, share, presenter, mode } = createApp();
registerOffline();
createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <StoreContext.Provider value={store}>
      <LessonContext.Provider value={lessons}>
        <LoopContext.Provider value={loop}>
          <ShareContext.Provider value={share}>
            <PresenterContext.Provider value={presenter}>
              {mode.embed ? <EmbedApp view={mode.view} /> : <App />}
            </PresenterContext.Provider>
          </ShareContext.Provider>
        </LoopContext.Provider>
      </LessonContext.Provider>
    </StoreContext.Provider>
  </StrictMode>,
);
