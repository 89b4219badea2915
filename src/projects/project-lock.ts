// One holder at a time per project directory of this node: runs starting together on one node fetch
// and drop revisions of a project in turn. Nodes never share a directory, so a lock of the process
// is enough (each node has its own data directory).
const tails = new Map<string, Promise<unknown>>();

/** Runs `work` once every earlier holder of `dir` has finished. */
export async function withProjectLock<T>(dir: string, work: () => Promise<T>): Promise<T> {
  const before = tails.get(dir) ?? Promise.resolve();
  const mine = before.catch(() => undefined).then(work);
  const tail = mine.catch(() => undefined);
  tails.set(dir, tail);
  try {
    return await mine;
  } finally {
    if (tails.get(dir) === tail) tails.delete(dir);
  }
}
