// The React side of the event-loop model: context and state slices.
import { createContext, useContext, useSyncExternalStore } from 'react';
import type { LoopModel, LoopState } from '../../model/loop';

export const LoopContext = createContext<LoopModel | null>(null);

export function useLoopApi(): LoopModel {
  const model = useContext(LoopContext);
  if (!model) throw new Error('LoopContext is missing');
  return model;
}

/** Subscribes to one slice; the component re-renders only when it changes. */
export function useLoop<T>(select: (s: LoopState) => T): T {
  const model = useLoopApi();
  return useSyncExternalStore(model.subscribe, () => select(model.getState()));
}
