// The React side of the store: context, slice subscriptions, translation.
import { createContext, useCallback, useContext, useSyncExternalStore } from 'react';
import { formatNumber, translate, type MessageKey, type Params, type Translate } from '../i18n';
import type { AppState, Store } from '../model/store';

export const StoreContext = createContext<Store | null>(null);

export function useStoreApi(): Store {
  const store = useContext(StoreContext);
  if (!store) throw new Error('StoreContext is missing');
  return store;
}

/** Subscribes to one slice; the component re-renders only when it changes. */
export function useAppState<T>(select: (s: AppState) => T): T {
  const store = useStoreApi();
  return useSyncExternalStore(store.subscribe, () => select(store.getState()));
}

export function useT(): Translate {
  const lang = useAppState((s) => s.lang);
  return useCallback((key: MessageKey, params?: Params) => translate(lang, key, params), [lang]);
}

/** Formats numbers in the UI language. */
export function useFormatNumber(): (n: number) => string {
  const lang = useAppState((s) => s.lang);
  return useCallback((n: number) => formatNumber(lang, n), [lang]);
}

/** True while the engine can take actions. */
export function useReady(): boolean {
  return useAppState((s) => s.phase === 'ready');
}
