import { choice, datetime, integer, ref, text } from '../../api/fields.ts';
import { defineResource } from '../../api/resource.ts';
import { createdSince } from '../../api/since-filter.ts';
import { policyResourceTypes } from './policy-resource-types.ts';
import { organizationRecords } from '../organizations/organization-scoped-access.ts';
import type { PolicyDecisionRow } from '../../db/tables.ts';

const readOnly = { readOnly: true } as const;

/** One policy hit at a launch (docs/policy.md#policy-decisions): written by the policy gate only. */
export const policyDecisions = defineResource<PolicyDecisionRow>({
  name: 'policy_decision',
  table: 'policy_decisions',
  label: 'Policy Decision List',
  description: 'Launches a policy warned about or denied: the policy, the run (gone when denied), who launched, the message and the context evaluated.',
  fields: {
    created: datetime({ ...readOnly, nullable: false }),
    decision: choice(['warn', 'deny'], readOnly),
    policy: ref('policy', { ...readOnly, nullable: true }),
    policy_name: text(readOnly),
    organization: ref('organization', readOnly),
    unified_job: integer({ ...readOnly, nullable: true, column: 'unified_job_id', helpText: 'The run launched; a denied launch left no run, only its id.' }),
    unified_job_template: integer({ ...readOnly, nullable: true, column: 'unified_job_template_id' }),
    resource_type: policyResourceTypes(choice, readOnly),
    user: ref('user', { ...readOnly, nullable: true }),
    message: text(readOnly),
  },
  ownTimestamps: true,
  operations: { create: false, update: false, delete: false },
  search: ['policy_name', 'message'],
  ordering: '-id',
  summaryColumns: ['id', 'decision', 'policy_name'],
  access: organizationRecords,
  queryFilters: {
    since: createdSince,
  },
  // The context document evaluated: on the decision's own page.
  detail: async (_db, row, out) => {
    out.context = row.context;
  },
});

