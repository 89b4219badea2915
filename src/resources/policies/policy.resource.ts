import { boolean, choice, choiceList, datetime, integer, ref, text } from '../../api/fields.ts';
import { defineResource } from '../../api/resource.ts';
import { policyResourceTypes } from './policy-resource-types.ts';
import { queuePolicyUpload, SYNC_STATES } from '../../policy/engine-outbox.ts';
import { policyAccess } from './policy-access.ts';
import { checkPolicy } from './policy-checks.ts';
import type { PolicyRow } from '../../db/tables.ts';

export const ENFORCEMENTS = ['none', 'warn', 'enforce'] as const;
const MAX_REGO = 256 * 1024;

const readOnly = { readOnly: true } as const;

/** Rego policies evaluated at every launch (docs/policy.md#policies). */
export const policies = defineResource<PolicyRow>({
  name: 'policy',
  plural: 'policies',
  table: 'policies',
  label: 'Policy List',
  description: 'Rego policies the policy engine evaluates before jobs, workflow jobs and ad hoc commands start: each may allow, warn or deny a launch.',
  fields: {
    name: text({ required: true, maxLength: 512, allowBlank: false }),
    description: text(),
    organization: ref('organization', { default: null, helpText: "The organization whose launches the policy gates; empty for a global policy (superusers only). An organization's policies define and evaluate packages under drover.org_<organization id>." }),
    rego_module: text({
      required: true, allowBlank: false, maxLength: MAX_REGO, filterable: false,
      helpText: "The Rego source, uploaded to the policy engine when saved. An organization's module defines packages and reads data under drover.org_<organization id> only; http.send, net.lookup_ip_addr and opa.runtime are for superusers' policies.",
    }),
    package_path: text({
      required: true, allowBlank: false, maxLength: 256,
      pattern: /^[A-Za-z_][A-Za-z0-9_]*([./][A-Za-z_][A-Za-z0-9_]*)*$/,
      patternMessage: 'Enter a package path of Rego names separated by dots or slashes, such as drover.org_1.launch.',
      helpText: "The data path evaluated, such as drover.org_1.launch (queried at /v1/data/drover/org_1/launch); an organization's policy evaluates a path under drover.org_<organization id>.",
    }),
    enforcement: choice(ENFORCEMENTS, { default: 'enforce', helpText: "none: not evaluated; warn: violations are recorded and shown on the job; enforce: a deny blocks the launch. The organization's policy_enforcement caps it." }),
    enabled: boolean({ default: true, helpText: 'Disabled policies are not evaluated.' }),
    applies_to: policyResourceTypes(choiceList, { helpText: 'What the policy gates: resource types of launches (the choices OPTIONS lists); empty for every launch.' }),
    trigger_count: integer({ ...readOnly, default: 0, helpText: 'Launches the policy warned about or denied.' }),
    last_triggered_at: datetime(readOnly),
    last_evaluated_at: datetime(readOnly),
    sync_state: choice(SYNC_STATES, { ...readOnly, default: 'pending', helpText: 'Whether the policy engine has the saved text: pending until the upload after the save, synced once the engine took it, failed (tried again) while the engine refuses it or cannot be reached.' }),
    sync_error: text({ ...readOnly, helpText: 'Why the last upload failed: the engine\'s message, or why it could not be reached.' }),
    synced_at: datetime({ ...readOnly, helpText: 'When the engine last took the policy.' }),
  },
  namedUrl: ['name', 'organization'],
  search: ['name', 'description', 'package_path'],
  ordering: 'name',
  unique: [['organization', 'name']],
  summaryColumns: ['id', 'name', 'enabled', 'enforcement'],
  access: policyAccess,
  queryFilters: {
    // A policy with no applies_to applies to everything.
    applies_to: (value, alias, params) => `(${alias}.applies_to = '[]'::jsonb OR ${alias}.applies_to @> jsonb_build_array(${params.add(value)}::text))`,
  },
  hooks: {
    beforeWrite: checkPolicy,
    afterWrite: async (tx, _ctx, row, existing) => {
      // Sent after commit; the removal of a deleted policy is queued by the database (migration 0033).
      if (!existing || existing.rego_module !== row.rego_module || (row.enabled && !existing.enabled)) await queuePolicyUpload(tx, row as { id: number });
    },
  },
  decorate: (row, out) => {
    const url = `/api/v2/policies/${row.id}/`;
    out.related = {
      ...(out.related as object), test: `${url}test/`, enable: `${url}enable/`, disable: `${url}disable/`,
      policy_decisions: `/api/v2/policy_decisions/?policy=${row.id}`,
    };
  },
});
