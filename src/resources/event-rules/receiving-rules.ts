/**
 * The rules the receiver looks up at every delivery, by webhook_path, with their keys decrypted: kept in
 * memory (each service its own) so that a delivery costs no query of its own. Any change of a rule (on any node) is announced
 * on RULES_CHANNEL and empties the cache; for a moment after a change this node does not cache at all,
 * so that a delivery arriving just after the change was answered never sees the rule as it was.
 */
import type { Database, Queryable } from '../../db/database.ts';
import { decryptSecret } from '../../secrets/encryption.ts';

declare module '../../api/context.ts' {
  interface ServiceCaches {
    /** Event rules by receiving webhook path. */
    receivingRules: ReceivingRules;
  }
}

export const RULES_CHANNEL = 'drover_event_rules';
export const EVENT_RULE_KEY_PURPOSE = 'event_rule.webhook_key';

/** SQL over an event_rules row: whether it may fire now, outside its throttle interval (the database's clock decides). */
export const OUTSIDE_THROTTLE = 'throttle_seconds = 0 OR last_fired_at IS NULL OR last_fired_at <= now() - make_interval(secs => throttle_seconds)';

const BYPASS_AFTER_CHANGE_MS = 2_000;
const MAX_CACHED = 10_000;

export interface ReceivingRule {
  id: number;
  name: string;
  organization_id: number;
  enabled: boolean;
  source_type: string;
  key: string;
}

/** The receiving rules of one service, by webhook_path (made by the composition root, one per service). */
export class ReceivingRules {
  private cached = new Map<string, ReceivingRule | null>();
  private bypassUntil = 0;

  forget(): void {
    this.cached = new Map();
    this.bypassUntil = Date.now() + BYPASS_AFTER_CHANGE_MS;
  }

  /** Announces a change of rules (inside the change's transaction: others hear it once it commits). */
  async changed(tx: Queryable): Promise<void> {
    this.forget();
    await tx.query(`SELECT pg_notify('${RULES_CHANNEL}', '')`);
  }

  /** Empties the cache whenever any node announces a change. */
  listen(db: Database): Promise<() => Promise<void>> {
    return db.listen(RULES_CHANNEL, () => this.forget());
  }

  /** The rule receiving at `path`, or null when there is none. */
  async find(db: Queryable, path: string): Promise<ReceivingRule | null> {
    const hit = this.cached.get(path);
    if (hit !== undefined) return hit;
    const started = Date.now();
    const [row] = await db.query<Omit<ReceivingRule, 'key'> & { webhook_key: string }>(
      'SELECT id, name, organization_id, enabled, source_type, webhook_key FROM event_rules WHERE webhook_path = $1',
      [path],
    );
    const rule = row ? { id: row.id, name: row.name, organization_id: row.organization_id, enabled: row.enabled, source_type: row.source_type, key: decryptSecret(EVENT_RULE_KEY_PURPOSE, row.webhook_key) } : null;
    // A lookup that began before a change may have read the rule as it was: it is not kept.
    if (started > this.bypassUntil && Date.now() > this.bypassUntil) {
      if (this.cached.size >= MAX_CACHED) this.cached = new Map();
      this.cached.set(path, rule);
    }
    return rule;
  }
}
