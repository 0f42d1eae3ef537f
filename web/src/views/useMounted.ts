import { useEffect, useRef, type RefObject } from 'react';

/** Whether the component is still mounted, for an answer that arrives
 *  after a request: mount-scoped, not per effect run, so a fetch begun
 *  before a change still hands over to the one made since. */
export function useMounted(): RefObject<boolean> {
  const alive = useRef(true);
  useEffect(() => {
    alive.current = true;
    return () => {
      alive.current = false;
    };
  }, []);
  return alive;
}
