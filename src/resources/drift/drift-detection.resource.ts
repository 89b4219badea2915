import { boolean, choice, datetime, json, ref, text } from '../../api/fields.ts';
import { defineResource } from '../../api/resource.ts';
import { CATEGORIES, SEVERITIES } from '../../drift/categories.ts';
import { inventoryReaders, mayAcknowledge } from './drift-access.ts';
import type { DriftDetectionRow } from '../../db/tables.ts';

const readOnly = { readOnly: true } as const;

/** One changed top-level fact of a host between two snapshots (docs/drift.md#a-drift-record). */
export const driftDetections = defineResource<DriftDetectionRow>({
  name: 'drift_detection',
  table: 'drift_detections',
  label: 'Drift Detection List',
  description: "Changes of hosts' facts between two jobs, one per changed top-level fact, with category and severity.",
  fields: {
    host: ref('host', readOnly),
    inventory: ref('inventory', readOnly),
    organization: ref('organization', readOnly),
    job: ref('job', { ...readOnly, helpText: 'Job whose facts showed the change.' }),
    snapshot_before: ref('fact_snapshot', { ...readOnly, helpText: 'The previous state (null once retention removed it).' }),
    snapshot_after: ref('fact_snapshot', { ...readOnly, helpText: 'The new state (null once retention removed it).' }),
    category: choice(CATEGORIES, readOnly),
    severity: choice(SEVERITIES, readOnly),
    fact_path: text({ ...readOnly, helpText: 'The top-level fact that changed (ansible_packages...).' }),
    summary: text(readOnly),
    diff_type: choice(['added', 'removed', 'changed'], readOnly),
    detail: json({ ...readOnly, helpText: 'before, after and diff_type; a side too long is cut and the detail marked truncated.' }),
    acknowledged: boolean(readOnly),
    acknowledged_by: ref('user', readOnly),
    acknowledged_at: datetime(readOnly),
    created: datetime({ ...readOnly, label: 'Detected at', nullable: false }),
  },
  ownTimestamps: true,
  operations: { create: false, update: false, delete: false },
  search: ['fact_path', 'summary'],
  ordering: '-created',
  summaryColumns: ['id', 'fact_path', 'category', 'severity'],
  access: {
    ...inventoryReaders,
    actions: { acknowledge: (ctx, tx, row) => mayAcknowledge(ctx, tx, row.inventory_id) },
    capabilities: { acknowledge: (ctx, tx, row) => mayAcknowledge(ctx, tx, row.inventory_id) },
  },
});
