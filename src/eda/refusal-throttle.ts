/**
 * Deliveries the receiver refuses for their signature are stored (logged as signature_failed,
 * docs/event-driven.md#the-receiver), so without a bound anyone who knows a rule's path could fill
 * the database.
 * Within WINDOW_SECONDS a rule keeps at most PER_RULE of them and a client address at most
 * PER_ADDRESS (across rules); beyond, the receiver answers 429 with Retry-After and stores nothing.
 * The stored refusals are the count, so every node of a cluster counts the same ones; the deliveries
 * a node is storing meanwhile count too, and a verdict of "wait N seconds" is kept in memory until
 * then, so a flood costs no query per request.
 */
import type { Queryable } from '../db/database.ts';

export const WINDOW_SECONDS = 60;
export const PER_RULE = 10;
export const PER_ADDRESS = 60;
const MAX_REMEMBERED = 10_000;

export type Admission = { retryAfter: number } | { release(): void };

export class RefusalThrottle {
  private storing = new Map<string, number>();
  private waitUntil = new Map<string, number>();

  constructor(private readonly db: Queryable) {}

  /** Whether a refused delivery for the rule from the address may be stored; `release` once it is. */
  async admit(ruleId: number, address: string): Promise<Admission> {
    const keys = [`rule:${ruleId}`, `address:${address}`];
    const now = Date.now();
    const known = Math.max(...keys.map((k) => this.waitUntil.get(k) ?? 0));
    if (known > now) return { retryAfter: Math.ceil((known - now) / 1000) };
    keys.forEach((k) => this.storing.set(k, (this.storing.get(k) ?? 0) + 1));
    const release = () => keys.forEach((k) => {
      const left = (this.storing.get(k) ?? 1) - 1;
      if (left > 0) this.storing.set(k, left);
      else this.storing.delete(k);
    });
    try {
      // Others being stored by this node (not this one) take places in the window too.
      const byRule = await this.wait(keys[0], PER_RULE, 'event_rule_id = $1', ruleId);
      const byAddress = await this.wait(keys[1], PER_ADDRESS, 'source_ip = $1', address);
      const retryAfter = Math.max(byRule, byAddress);
      if (!retryAfter) return { release };
      release();
      return { retryAfter };
    } catch (err) {
      release();
      throw err;
    }
  }

  /** Seconds until the key has room again (0: it has room now), remembered when it has none. */
  private async wait(key: string, limit: number, condition: string, value: unknown): Promise<number> {
    const others = (this.storing.get(key) ?? 1) - 1;
    if (others >= limit) return this.remember(key, 1);
    // The limit-th most recent refusal in the window (counting those being stored): once it ages out, there is room.
    const [row] = await this.db.query<{ wait: number | null }>(
      `SELECT extract(epoch FROM created + make_interval(secs => $2) - now())::float8 AS wait FROM event_logs
       WHERE status = 'signature_failed' AND ${condition} AND created > now() - make_interval(secs => $2)
       ORDER BY created DESC OFFSET $3 LIMIT 1`,
      [value, WINDOW_SECONDS, limit - 1 - others],
    );
    return row?.wait == null ? 0 : this.remember(key, Math.max(1, Math.ceil(row.wait)));
  }

  private remember(key: string, seconds: number): number {
    if (this.waitUntil.size >= MAX_REMEMBERED) {
      const current = [...this.waitUntil].filter(([, until]) => until > Date.now());
      this.waitUntil = new Map(current.length < MAX_REMEMBERED / 2 ? current : []);
    }
    this.waitUntil.set(key, Date.now() + seconds * 1000);
    return seconds;
  }
}
