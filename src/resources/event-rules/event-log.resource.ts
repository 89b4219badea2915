import { boolean, choice, datetime, integer, json, ref, text } from '../../api/fields.ts';
import { defineResource } from '../../api/resource.ts';
import { organizationRecords } from '../organizations/organization-scoped-access.ts';
import { SOURCE_TYPES } from './source-types.ts';
import type { EventLogRow } from '../../db/tables.ts';

const readOnly = { readOnly: true } as const;

export const EVENT_STATUSES = ['received', 'matched', 'unmatched', 'throttled', 'action_fired', 'action_failed', 'error', 'signature_failed'] as const;

/** One event the receiver took in (its payload on its own page only), and what its rule made of it (docs/event-driven.md#event-logs): written by the service only. */
export const eventLogs = defineResource<EventLogRow>({
  name: 'event_log',
  table: 'event_logs',
  label: 'Event Log List',
  description: 'Events received by event rules: the payload, each condition\'s result and each action\'s outcome.',
  fields: {
    created: datetime({ ...readOnly, nullable: false }),
    event_rule: ref('event_rule', { ...readOnly, nullable: true }),
    event_rule_name: text(readOnly),
    organization: ref('organization', readOnly),
    source_type: choice(SOURCE_TYPES, readOnly),
    source_ip: text(readOnly),
    event_type: text(readOnly),
    event_guid: text(readOnly),
    headers: json({ ...readOnly, filterable: false }),
    conditions_matched: boolean({ ...readOnly, nullable: true }),
    condition_results: json({ ...readOnly, filterable: false }),
    actions_triggered: json({ ...readOnly, filterable: false }),
    status: choice(EVENT_STATUSES, readOnly),
    job_id: integer({ ...readOnly, nullable: true, helpText: 'The job (or workflow job) the first launching action started.' }),
    processed_at: datetime({ ...readOnly, nullable: true }),
  },
  ownTimestamps: true,
  operations: { create: false, update: false, delete: false },
  search: ['event_rule_name', 'event_type', 'event_guid'],
  ordering: '-id',
  summaryColumns: ['id', 'event_type', 'status'],
  access: organizationRecords,
  // Up to 1 MiB each: only the log's own page shows the payload.
  detail: async (_db, row, out) => {
    out.payload = row.payload;
  },
});
