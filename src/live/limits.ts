/** Limits of the live output; tests and embedders may lower them with configureLiveOutput. */
export interface LiveLimits {
  /** Event messages per client per run in one second, beyond which events are skipped; null: the MAX_WEBSOCKET_EVENT_RATE setting. */
  eventsPerSecond: number | null;
  /** Bytes waiting to be sent to a client before it is closed as too slow. */
  maxBufferedBytes: number;
  /** How often clients are pinged; one that has not answered the previous ping is dropped. */
  pingIntervalMs: number;
  /** Groups one client may be in at once. */
  maxGroups: number;
  /** Largest message a client may send. */
  maxMessageBytes: number;
}

export const liveLimits: LiveLimits = {
  eventsPerSecond: null,
  maxBufferedBytes: 4 * 1024 * 1024,
  pingIntervalMs: 30_000,
  maxGroups: 200,
  maxMessageBytes: 64 * 1024,
};

export function configureLiveOutput(limits: Partial<LiveLimits>): void {
  Object.assign(liveLimits, limits);
}
