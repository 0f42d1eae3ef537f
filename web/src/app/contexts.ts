// The React side of sharing and presenter mode: contexts and slice hooks.
import { createContext, useContext, useSyncExternalStore } from 'react';
import type { ShareModel, ShareState } from '../share/model';
import type { Presenter, PresenterState } from './presenter';

export const ShareContext = createContext<ShareModel | null>(null);
export const PresenterContext = createContext<Presenter | null>(null);

export function useShareApi(): ShareModel {
  const share = useContext(ShareContext);
  if (!share) throw new Error('ShareContext is missing');
  return share;
}

export function useShare<T>(select: (s: ShareState) => T): T {
  const share = useShareApi();
  return useSyncExternalStore(share.subscribe, () => select(share.getState()));
}

export function usePresenterApi(): Presenter {
  const p = useContext(PresenterContext);
  if (!p) throw new Error('PresenterContext is missing');
  return p;
}

export function usePresenter<T>(select: (s: PresenterState) => T): T {
  const p = usePresenterApi();
  return useSyncExternalStore(p.subscribe, () => select(p.getState()));
}
