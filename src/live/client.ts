import type { WebSocket } from 'ws';
import type { RequestContext } from '../api/context.ts';
import { isVisible } from '../api/list.ts';
import { ident } from '../api/sql.ts';
import type { CredentialCheck } from './credentials.ts';
import { liveLimits } from './limits.ts';
import { reportBroadcast } from './broadcast-log.ts';
import { eofMessage, skippedMessage, type EventStream } from './messages.ts';
import type { RunServices } from '../runs/run-services.ts';

const VISIBILITY_TTL_MS = 30_000;
const VISIBILITY_CACHE_SIZE = 1_000;
const CLOSE_GRACE_MS = 5_000;

interface RateWindow {
  stream: EventStream;
  start: number;
  sent: number;
  skipped: number;
  first: number;
  last: number;
  timer: NodeJS.Timeout | null;
}

/**
 * One connected websocket: who it is, the groups it is in, and what it has been sent. Sending
 * never waits: a client whose unsent output grows beyond the limit is closed.
 */
export class LiveClient {
  readonly groups = new Set<string>();
  /** Runs whose event group this client is in. */
  readonly eventRuns = new Set<number>();
  private readonly visibility = new Map<string, { visible: boolean; at: number }>();
  private readonly rates = new Map<number, RateWindow>();
  private closed = false;
  alive = true;

  constructor(
    readonly socket: WebSocket,
    readonly ctx: RequestContext,
    private readonly services: RunServices,
    /** The CSRF token every message must carry for a session-authenticated client; null when none is needed. */
    readonly xrfToken: string | null,
    /** Whether the credentials the socket was opened with still hold. */
    readonly checkCredentials: CredentialCheck,
  ) {}

  get open(): boolean {
    return !this.closed && this.socket.readyState === this.socket.OPEN;
  }

  /** Sends a message (an object, or one already serialized). */
  send(message: unknown): void {
    if (!this.open) return;
    if (this.socket.bufferedAmount > liveLimits.maxBufferedBytes) {
      reportBroadcast(this.services, 'WARNING', `A live output client of user ${this.ctx.user?.username ?? 'unknown'} was closed: more than ${liveLimits.maxBufferedBytes} bytes waited for it.`, { user: this.ctx.user?.username ?? null, reason: 'slow', buffered: this.socket.bufferedAmount });
      this.close(1013, 'Too much output waiting for this client; reconnect and read the rest through the API.');
      return;
    }
    this.socket.send(typeof message === 'string' ? message : JSON.stringify(message));
  }

  close(code: number, reason: string): void {
    if (this.closed) return;
    this.closed = true;
    this.dispose();
    this.socket.close(code, reason);
    // A client that does not read cannot receive the close frame either.
    setTimeout(() => this.socket.terminate(), CLOSE_GRACE_MS).unref();
  }

  dispose(): void {
    for (const rate of this.rates.values()) if (rate.timer) clearTimeout(rate.timer);
    this.rates.clear();
  }

  setGroups(groups: Set<string>, eventRuns: Set<number>): void {
    this.groups.clear();
    for (const g of groups) this.groups.add(g);
    this.eventRuns.clear();
    for (const id of eventRuns) this.eventRuns.add(id);
    for (const [id, rate] of this.rates) {
      if (eventRuns.has(id)) continue;
      if (rate.timer) clearTimeout(rate.timer);
      this.rates.delete(id);
    }
  }

  /** May this client read the run? Asked of the run kind's access policy, remembered for a while. */
  async mayRead(kind: string, id: number): Promise<boolean> {
    const key = `${kind}:${id}`;
    const cached = this.visibility.get(key);
    if (cached && Date.now() - cached.at < VISIBILITY_TTL_MS) return cached.visible;
    const resource = this.services.resources.find(kind);
    const { db } = this.services;
    // As AWX, a run that does not exist is refused to everyone (isVisible answers true to superusers without looking).
    const exists = resource ? (await db.query(`SELECT 1 FROM ${ident(resource.table)} WHERE id = $1`, [id])).length > 0 : false;
    const visible = exists && (await isVisible(db, this.ctx, resource!, id));
    if (this.visibility.size >= VISIBILITY_CACHE_SIZE) this.visibility.clear();
    this.visibility.set(key, { visible, at: Date.now() });
    return visible;
  }

  /** The event stream a group name follows (job_events...), from the service's run kinds; undefined for other groups. */
  eventStreamOfGroup(group: string): EventStream | undefined {
    return this.services.runKinds.eventStreamOfGroup(group);
  }

  /** The event stream of the run kind when the client follows the run's events. */
  private following(kind: string, runId: number): EventStream | undefined {
    const stream = this.services.runKinds.eventStream(kind);
    return stream && this.groups.has(`${stream.group}-${runId}`) ? stream : undefined;
  }

  /** Sends an event unless the client had its share of this run's events in the current second. */
  sendEvent(kind: string, runId: number, counter: number, message: unknown): void {
    const stream = this.following(kind, runId);
    if (!stream) return;
    const now = Date.now();
    let rate = this.rates.get(runId);
    if (rate && now - rate.start >= 1000) {
      this.flushSkipped(runId);
      rate.start = now;
      rate.sent = 0;
    }
    if (!rate) this.rates.set(runId, (rate = { stream, start: now, sent: 0, skipped: 0, first: 0, last: 0, timer: null }));
    // MAX_WEBSOCKET_EVENT_RATE: 0 means no limit.
    const perSecond = liveLimits.eventsPerSecond ?? (this.services.settings.get('MAX_WEBSOCKET_EVENT_RATE') || Infinity);
    if (rate.sent < perSecond) {
      rate.sent += 1;
      this.send(message);
      return;
    }
    if (!rate.skipped) rate.first = counter;
    rate.skipped += 1;
    rate.last = counter;
    rate.timer ??= setTimeout(() => this.flushSkipped(runId), Math.max(0, rate.start + 1000 - now));
  }

  /** The run's events are all stored: what was skipped is reported, then EOF. */
  sendEof(kind: string, runId: number, finalCounter: number): void {
    const stream = this.following(kind, runId);
    if (!stream) return;
    this.flushSkipped(runId);
    const rate = this.rates.get(runId);
    if (rate?.timer) clearTimeout(rate.timer);
    this.rates.delete(runId);
    this.send(eofMessage(stream, runId, finalCounter));
  }

  private flushSkipped(runId: number): void {
    const rate = this.rates.get(runId);
    if (!rate) return;
    if (rate.timer) clearTimeout(rate.timer);
    rate.timer = null;
    if (!rate.skipped) return;
    this.send(skippedMessage(rate.stream, runId, { count: rate.skipped, first: rate.first, last: rate.last }));
    rate.skipped = 0;
  }
}
