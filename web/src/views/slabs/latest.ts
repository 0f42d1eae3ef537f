// One request at a time, the latest wins: a request made while one is
// running is not dropped but run once after it, so the last state asked
// for is always the one fetched. No React: the pane's hook wraps it.

/** Returns a trigger for `job`. Calls while `job` runs are folded into one
 *  run after it ends; `job` reads whatever is current when it starts. */
export function latestOnly(job: () => Promise<void>): () => void {
  let busy = false;
  let again = false;
  const run = async () => {
    if (busy) {
      again = true;
      return;
    }
    busy = true;
    try {
      do {
        again = false;
        await job();
      } while (again);
    } finally {
      busy = false;
    }
  };
  return () => void run();
}
