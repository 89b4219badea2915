import type { LiveClient } from './client.ts';
import { eventMessage, statusMessage, summaryMessage } from './messages.ts';
import type { UnifiedJobEventRow } from '../db/tables.ts';
import { LIVE_CHANNEL, parseNotice, type LiveNotice } from './notices.ts';
import type { RunServices } from '../runs/run-services.ts';
import { reportBroadcast } from './broadcast-log.ts';

/** Rows read per query when a notice names many events. */
const READ_BATCH = 500;
const SHUTDOWN_GRACE_MS = 1_000;

/**
 * The clients of this node and the notices of every node: each notice is turned into messages
 * for the clients in its group that may read its run. Notices of one run are handled one after
 * the other, in the order they were committed, so a run's messages keep their order.
 */
export class LiveHub {
  private readonly clients = new Set<LiveClient>();
  private readonly chains = new Map<number, Promise<void>>();
  private stopListening: (() => Promise<void>) | null = null;

  constructor(private readonly services: RunServices) {}

  async start(): Promise<void> {
    this.stopListening = await this.services.db.listen(LIVE_CHANNEL, (payload) => this.receive(payload));
  }

  /** Stops listening and closes every client (the HTTP server's close waits for their sockets). */
  async stop(): Promise<void> {
    await this.stopListening?.().catch(() => undefined);
    this.stopListening = null;
    const sockets = [...this.clients].map((c) => c.socket);
    for (const client of this.clients) client.close(1001, 'The server is shutting down.');
    this.clients.clear();
    await Promise.all(this.chains.values());
    const closed = Promise.all(sockets.map((s) => (s.readyState === s.CLOSED ? undefined : new Promise((resolve) => s.once('close', resolve)))));
    const timer = setTimeout(() => sockets.forEach((s) => s.terminate()), SHUTDOWN_GRACE_MS);
    await closed;
    clearTimeout(timer);
  }

  /**
   * Pings every client; one that did not answer the previous ping is dropped, and one whose
   * token or session ended is closed.
   */
  heartbeat(): void {
    for (const client of this.clients) {
      if (!client.alive) {
        reportBroadcast(this.services, 'WARNING', `A live output client of user ${client.ctx.user?.username ?? 'unknown'} did not answer a ping and was dropped.`, { user: client.ctx.user?.username ?? null, reason: 'ping' });
        this.remove(client);
        client.socket.terminate();
        continue;
      }
      client.alive = false;
      client.socket.ping();
      void client
        .checkCredentials()
        .then((ended) => ended && client.close(1008, ended))
        .catch(() => undefined);
    }
  }

  add(client: LiveClient): void {
    this.clients.add(client);
  }

  remove(client: LiveClient): void {
    this.clients.delete(client);
    client.dispose();
  }

  private receive(payload: string): void {
    const notice = parseNotice(payload);
    if (!notice || !this.clients.size) return;
    const previous = this.chains.get(notice.id) ?? Promise.resolve();
    const next = previous
      .then(() => this.deliver(notice))
      .catch((err) => reportBroadcast(this.services, 'ERROR', `Live output of run ${notice.id} failed: ${err instanceof Error ? err.message : err}`, { run: notice.id, notice: notice.t }))
      .finally(() => {
        if (this.chains.get(notice.id) === next) this.chains.delete(notice.id);
      });
    this.chains.set(notice.id, next);
  }

  private async deliver(notice: LiveNotice): Promise<void> {
    if (notice.t === 'events') return this.deliverEvents(notice.id, notice.from, notice.to);
    if (notice.t === 'status') {
      return this.toReaders('jobs-status_changed', notice.kind, notice.id, statusMessage(notice));
    }
    for (const client of this.clients) client.sendEof(notice.kind, notice.id, notice.final);
    return this.toReaders('jobs-summary', notice.kind, notice.id, summaryMessage(notice.id, notice.final));
  }

  /** Status and summary messages go to the group's clients that may read the run. */
  private async toReaders(group: string, kind: string, id: number, message: unknown): Promise<void> {
    for (const client of [...this.clients]) {
      if (client.groups.has(group) && (await client.mayRead(kind, id))) client.send(message);
    }
  }

  /** Reads the events a notice names (only when a client here follows the run) and sends them in counter order. */
  private async deliverEvents(runId: number, from: number, to: number): Promise<void> {
    for (let start = from; start <= to; start += READ_BATCH) {
      const followers = [...this.clients].filter((c) => c.open && c.eventRuns.has(runId));
      if (!followers.length) return;
      const rows = await this.services.db.query<UnifiedJobEventRow & { kind: string }>(
        `SELECT e.*, u.kind FROM unified_job_events e JOIN unified_jobs u ON u.id = e.unified_job_id
         WHERE e.unified_job_id = $1 AND e.counter BETWEEN $2 AND $3 ORDER BY e.counter`,
        [runId, start, Math.min(to, start + READ_BATCH - 1)],
      );
      for (const row of rows) {
        const stream = this.services.runKinds.eventStream(row.kind);
        if (!stream) continue;
        const message = JSON.stringify(eventMessage(stream, row));
        for (const client of followers) client.sendEvent(row.kind, runId, row.counter, message);
      }
    }
  }
}
