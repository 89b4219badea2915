/**
 * What `/api/v2/ping/` answers, read so that a busy database never holds the health check: each
 * request starts a fresh reading (one at a time) and waits for it at most PING_PATIENCE_MS; past
 * that it answers the last reading, which the running one replaces when it ends. Load balancers and
 * monitors poll ping while one slow request may occupy the embedded database for seconds.
 */
const PING_PATIENCE_MS = 10;

export interface PingReading<T> {
  read(): Promise<T>;
}

export function pingReading<T>(load: () => Promise<T>): PingReading<T> {
  let last: T | undefined;
  let running: Promise<T> | null = null;
  const refresh = () => {
    running ??= load().then(
      (value) => {
        last = value;
        running = null;
        return value;
      },
      (err) => {
        running = null;
        throw err;
      },
    );
    return running;
  };
  return {
    async read() {
      const fresh = refresh();
      if (last === undefined) return fresh;
      const stale = last;
      let timer: NodeJS.Timeout | undefined;
      const patience = new Promise<T>((resolve) => {
        timer = setTimeout(() => resolve(stale), PING_PATIENCE_MS);
      });
      try {
        return await Promise.race([fresh.catch(() => stale), patience]);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
