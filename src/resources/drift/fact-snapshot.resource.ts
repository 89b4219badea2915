import { datetime, ref, text } from '../../api/fields.ts';
import { defineResource } from '../../api/resource.ts';
import { inventoryReaders } from './drift-access.ts';
import type { HostFactSnapshotRow } from '../../db/tables.ts';

const readOnly = { readOnly: true } as const;

/** A host's facts as a job left them (docs/drift.md#the-pipeline); the full facts only on the object's own page. */
export const factSnapshots = defineResource<HostFactSnapshotRow>({
  name: 'fact_snapshot',
  table: 'host_fact_snapshots',
  label: 'Fact Snapshot List',
  description: "Copies of hosts' facts taken after jobs with fact caching changed them: the states drift is measured between.",
  fields: {
    host: ref('host', { ...readOnly, helpText: 'Host whose facts were captured.' }),
    job: ref('job', { ...readOnly, helpText: 'Job that saved the facts.' }),
    inventory: ref('inventory', { ...readOnly, helpText: "The host's inventory." }),
    organization: ref('organization', { ...readOnly, helpText: "The inventory's organization." }),
    captured_at: datetime({ ...readOnly, nullable: false }),
    facts_hash: text({ ...readOnly, helpText: 'SHA-256 of the facts as key-sorted JSON.' }),
  },
  ownTimestamps: true,
  operations: { create: false, update: false, delete: false },
  ordering: '-captured_at',
  summaryColumns: ['id', 'captured_at', 'facts_hash'],
  access: inventoryReaders,
  detail: async (_db, row, out) => {
    out.facts = row.facts;
  },
});
