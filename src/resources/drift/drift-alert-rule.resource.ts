import { ValidationError } from '../../api/errors.ts';
import { boolean, choice, choiceList, datetime, integer, ref, text } from '../../api/fields.ts';
import { defineResource, type Values } from '../../api/resource.ts';
import type { Queryable, Row } from '../../db/database.ts';
import { CATEGORIES, SEVERITIES } from '../../drift/categories.ts';
import { alertRuleAccess } from './drift-access.ts';
import type { DriftAlertRuleRow } from '../../db/tables.ts';

/** The inventory and the notification template must be the rule's organization's. */
async function checkRule(tx: Queryable, values: Values, existing: Row | null): Promise<void> {
  const organization = (values.organization ?? existing?.organization_id) as number;
  const inventory = values.inventory !== undefined ? values.inventory : existing?.inventory_id;
  if (typeof inventory === 'number') {
    const [row] = await tx.query('SELECT organization_id FROM inventories WHERE id = $1', [inventory]);
    if (row?.organization_id !== organization) throw ValidationError.field('inventory', "The inventory must belong to the rule's organization.");
  }
  const template = values.notification_template !== undefined ? values.notification_template : existing?.notification_template_id;
  if (typeof template === 'number') {
    const [row] = await tx.query('SELECT organization_id FROM notification_templates WHERE id = $1', [template]);
    if (row?.organization_id !== organization) throw ValidationError.field('notification_template', "The notification template must belong to the rule's organization.");
  }
}

/** What raises drift alerts in an organization (docs/drift.md#alert-rules, with its defaults). */
export const driftAlertRules = defineResource<DriftAlertRuleRow>({
  name: 'drift_alert_rule',
  table: 'drift_alert_rules',
  label: 'Drift Alert Rule List',
  description: 'Rules that raise an alert, and send a notification, when a host drifts enough within a time window.',
  fields: {
    name: text({ required: true, maxLength: 512, allowBlank: false }),
    description: text(),
    organization: ref('organization', { required: true }),
    enabled: boolean({ default: true, helpText: 'Paused rules raise no alerts.' }),
    inventory: ref('inventory', { helpText: 'Only drift of hosts in this inventory counts; empty for every inventory of the organization.' }),
    host_filter: text({ maxLength: 512, helpText: 'Only hosts whose name matches this pattern (*, ?, [abc]) count; empty for every host.' }),
    categories: choiceList(CATEGORIES, { helpText: `Drift categories that count (${CATEGORIES.join(', ')}); empty counts every category.` }),
    severity_min: choice(SEVERITIES, { default: 'medium', helpText: 'The lowest severity that counts.' }),
    threshold_count: integer({ default: 1, min: 1, max: 1_000_000, helpText: "Drift items of one host that raise the alert." }),
    threshold_window_minutes: integer({ default: 60, min: 1, max: 525_600, helpText: 'Drift of the last this many minutes counts.' }),
    cooldown_minutes: integer({ default: 30, min: 0, max: 525_600, helpText: 'Minutes after an alert before the rule raises another.' }),
    notification_template: ref('notification_template', { required: true, helpText: 'Where the alert is sent.' }),
    last_fired_at: datetime({ readOnly: true }),
  },
  namedUrl: ['name', 'organization'],
  search: ['name', 'description'],
  ordering: 'name',
  unique: [['organization', 'name']],
  summaryColumns: ['id', 'name', 'enabled'],
  access: alertRuleAccess,
  hooks: { beforeWrite: (tx, _ctx, values, existing) => checkRule(tx, values, existing) },
});
