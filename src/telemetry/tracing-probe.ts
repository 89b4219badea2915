/**
 * Whether the collector is listening: a TCP connect to the endpoint's host and port, with a short
 * timeout. An answer is kept 30 seconds; a read never waits for a probe: it answers what is known
 * and, when that is stale or of another endpoint, starts one in the background.
 */
import { connect } from 'node:net';

const CACHE_MS = 30_000;
const CONNECT_TIMEOUT_MS = 2_000;

export interface CollectorHealth {
  healthy: boolean;
  /** When the answer was found; null before the first probe of this endpoint. */
  checked: Date | null;
}

/** Connects to the endpoint's host and port (80 or 443 by its scheme when it names none); true once connected. */
export function probeEndpoint(endpoint: string, timeoutMs = CONNECT_TIMEOUT_MS): Promise<boolean> {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return Promise.resolve(false);
  }
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (healthy: boolean) => {
      socket.destroy();
      resolve(healthy);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

export class CollectorProbe {
  private known: { endpoint: string; healthy: boolean; checked: Date } | null = null;
  private probing: Promise<void> | null = null;

  constructor(private readonly probe: (endpoint: string) => Promise<boolean> = probeEndpoint) {}

  read(endpoint: string): CollectorHealth {
    const known = this.known?.endpoint === endpoint ? this.known : null;
    if (!known || Date.now() - known.checked.getTime() >= CACHE_MS) this.refresh(endpoint);
    return known ? { healthy: known.healthy, checked: known.checked } : { healthy: false, checked: null };
  }

  private refresh(endpoint: string): void {
    if (this.probing) return;
    this.probing = this.probe(endpoint)
      .catch(() => false)
      .then((healthy) => {
        this.known = { endpoint, healthy, checked: new Date() };
      })
      .finally(() => {
        this.probing = null;
      });
  }
}
