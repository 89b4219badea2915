import { choice, datetime, integer, ref, text } from '../../api/fields.ts';
import { defineResource } from '../../api/resource.ts';
import { alertAccess } from './drift-access.ts';
import type { DriftAlertRow } from '../../db/tables.ts';

const readOnly = { readOnly: true } as const;

/** An alert a rule raised (docs/drift.md#alert-rules): immutable but for how its notification went. */
export const driftAlerts = defineResource<DriftAlertRow>({
  name: 'drift_alert',
  table: 'drift_alerts',
  label: 'Drift Alert List',
  description: 'Alerts raised by drift alert rules, with the outcome of their notification.',
  fields: {
    alert_rule: ref('drift_alert_rule', readOnly),
    organization: ref('organization', readOnly),
    host: ref('host', readOnly),
    drift_count: integer(readOnly),
    summary: text(readOnly),
    notification_status: choice(['pending', 'sent', 'failed'], readOnly),
    notification_error: text(readOnly),
    created: datetime({ ...readOnly, nullable: false }),
  },
  ownTimestamps: true,
  operations: { create: false, update: false, delete: false },
  search: ['summary'],
  ordering: '-created',
  summaryColumns: ['id', 'drift_count', 'notification_status'],
  access: alertAccess,
});
