import { boolean, datetime, integer, json, text } from '../../api/fields.ts';
import { defineResource } from '../../api/resource.ts';
import type { UnifiedJobEventRow } from '../../db/tables.ts';

/**
 * Output events of every run kind. Reached only through a run (/project_updates/{id}/events/,
 * /jobs/{id}/job_events/...), whose visibility the route checks first.
 */
export const unifiedJobEvents = defineResource<UnifiedJobEventRow>({
  name: 'unified_job_event',
  table: 'unified_job_events',
  label: 'Event List',
  topLevel: false,
  untracked: true,
  operations: { create: false, update: false, delete: false },
  ordering: 'counter',
  search: ['stdout'],
  fields: {
    event: text({ readOnly: true }),
    counter: integer({ readOnly: true }),
    event_data: json({ readOnly: true }),
    failed: boolean({ readOnly: true }),
    changed: boolean({ readOnly: true }),
    uuid: text({ readOnly: true }),
    parent_uuid: text({ readOnly: true }),
    host: integer({ readOnly: true, nullable: true, column: 'host_id' }),
    host_name: text({ readOnly: true }),
    playbook: text({ readOnly: true }),
    play: text({ readOnly: true }),
    task: text({ readOnly: true }),
    role: text({ readOnly: true }),
    stdout: text({ readOnly: true }),
    start_line: integer({ readOnly: true }),
    end_line: integer({ readOnly: true }),
    verbosity: integer({ readOnly: true }),
    created: datetime({ readOnly: true }),
    modified: datetime({ readOnly: true }),
  },
  access: {
    visible: () => null,
    canCreate: () => false,
    canChange: () => false,
    canDelete: () => false,
    canAttach: () => false,
  },
});
