/**
 * Alert evaluation after a capture batch: every enabled rule of the hosts' organizations counts, per
 * host with new drift, the unacknowledged drift of the last threshold_window_minutes in its categories
 * (all when empty) at or above severity_min, in its inventory (if set) and on hosts whose name matches
 * host_filter. Reaching threshold_count fires the rule once, unless it fired within cooldown_minutes:
 * an alert for the host with the most drift (the others named in its summary) and a notification
 * through the rule's template, whose outcome the sender writes back to the alert.
 */
import type { Queryable } from '../db/database.ts';
import type { DriftAlertRuleRow } from '../db/tables.ts';
import { queueTemplateNotification } from '../resources/notification-templates/queue.ts';
import { severityRank } from './categories.ts';
import { fnmatchCase } from './fnmatch.ts';

const OTHERS_NAMED = 5;

export async function evaluateAlertRules(tx: Queryable, hostIds: readonly number[]): Promise<number> {
  if (!hostIds.length) return 0;
  const rules = await tx.query<DriftAlertRuleRow>(
    `SELECT r.* FROM drift_alert_rules r WHERE r.enabled AND r.organization_id IN (
       SELECT DISTINCT i.organization_id FROM hosts h JOIN inventories i ON i.id = h.inventory_id WHERE h.id = ANY($1::int[]))
     ORDER BY r.id`,
    [hostIds],
  );
  let fired = 0;
  for (const rule of rules) if (await evaluateRule(tx, rule, hostIds)) fired++;
  return fired;
}

async function evaluateRule(tx: Queryable, rule: DriftAlertRuleRow, hostIds: readonly number[]): Promise<boolean> {
  const counted = await tx.query<{ host_id: number; name: string; inventory: string; drift: number }>(
    `SELECT d.host_id, h.name, i.name AS inventory, count(*)::int AS drift
     FROM drift_detections d JOIN hosts h ON h.id = d.host_id JOIN inventories i ON i.id = h.inventory_id
     WHERE d.host_id = ANY($1::int[]) AND i.organization_id = $2 AND NOT d.acknowledged
       AND d.created >= now() - make_interval(mins => $3::int) AND d.severity_rank >= $4
       AND ($5::int IS NULL OR h.inventory_id = $5)
       AND (jsonb_array_length($6::jsonb) = 0 OR d.category IN (SELECT jsonb_array_elements_text($6::jsonb)))
     GROUP BY d.host_id, h.name, i.name HAVING count(*) >= $7
     ORDER BY drift DESC, h.name`,
    [hostIds, rule.organization_id, rule.threshold_window_minutes, severityRank(rule.severity_min), rule.inventory_id, JSON.stringify(rule.categories ?? []), rule.threshold_count],
  );
  const reached = counted.filter((row) => !rule.host_filter || fnmatchCase(row.name, rule.host_filter));
  if (!reached.length) return false;
  // The cooldown is claimed in one statement, so two nodes evaluating at once fire the rule once.
  const [claimed] = await tx.query(
    `UPDATE drift_alert_rules SET last_fired_at = now()
     WHERE id = $1 AND (last_fired_at IS NULL OR last_fired_at <= now() - make_interval(mins => cooldown_minutes)) RETURNING id`,
    [rule.id],
  );
  if (!claimed) return false;
  const [first, ...others] = reached;
  const summary = alertSummary(rule, first, others);
  const [alert] = await tx.query<{ id: number; created: Date }>(
    `INSERT INTO drift_alerts (alert_rule_id, organization_id, host_id, drift_count, summary) VALUES ($1, $2, $3, $4, $5) RETURNING id, created`,
    [rule.id, rule.organization_id, first.host_id, first.drift, summary],
  );
  if (!rule.notification_template_id) {
    await tx.query(`UPDATE drift_alerts SET notification_status = 'failed', notification_error = 'The rule has no notification template.' WHERE id = $1`, [alert.id]);
    return true;
  }
  const notificationId = await queueTemplateNotification(tx, rule.notification_template_id, 'drift_alert', {
    extraContext: {
      drift_alert: { id: alert.id, rule: rule.name, rule_id: rule.id, host: first.name, host_id: first.host_id, inventory: first.inventory, drift_count: first.drift, summary, created: alert.created },
      rule_name: rule.name,
      host_name: first.name,
      drift_count: first.drift,
      summary,
    },
  });
  await tx.query('UPDATE drift_alerts SET notification_id = $2 WHERE id = $1', [alert.id, notificationId]);
  return true;
}

function alertSummary(rule: DriftAlertRuleRow, first: { name: string; drift: number }, others: { name: string }[]): string {
  const text = `${first.drift} drift item${first.drift === 1 ? '' : 's'} on ${first.name} within ${rule.threshold_window_minutes} minutes (rule "${rule.name}", threshold ${rule.threshold_count})`;
  if (!others.length) return text;
  const names = others.slice(0, OTHERS_NAMED).map((o) => o.name).join(', ');
  return `${text}; ${others.length} other host${others.length === 1 ? '' : 's'} also reached it: ${names}${others.length > OTHERS_NAMED ? ', …' : ''}`;
}
