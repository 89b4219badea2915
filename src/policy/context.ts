/** The context document a policy evaluates (docs/policy.md#the-context-document): what is launched, by whom, with what. */
import { ENCRYPTED } from '../api/fields.ts';
import type { Queryable, Row } from '../db/database.ts';
import type { UnifiedJobRow } from '../db/tables.ts';
import { parseVariables } from '../inventory/variables.ts';
import type { GateInput } from '../runs/gates.ts';
import type { RunKind } from '../runs/run-kind.ts';


/** What a run is to policies: its resource type and whether the run itself is the resource; null for runs they do not gate (project updates, system jobs...). */
export function launchPolicyOf(kind: RunKind, run: UnifiedJobRow): { resourceType: string; resourceIsRun: boolean } | null {
  const policy = kind.policy;
  if (!policy) return null;
  return { resourceType: policy.resourceTypeOf?.(run) ?? policy.resourceTypes[0], resourceIsRun: policy.resourceIsRun === true };
}

/** Extra vars as launched, with survey password answers shown as $encrypted$. */
function maskedExtraVars(run: UnifiedJobRow): Record<string, unknown> {
  const vars = parseVariables(run.extra_vars);
  const passwords = run.survey_passwords && typeof run.survey_passwords === 'object' ? Object.keys(run.survey_passwords) : [];
  for (const name of passwords) if (name in vars) vars[name] = ENCRYPTED;
  return vars;
}

export interface LaunchOrganization {
  id: number;
  name: string;
}

export async function contextDocument(
  tx: Queryable, launch: GateInput, { resourceType, resourceIsRun }: { resourceType: string; resourceIsRun: boolean }, organization: LaunchOrganization,
): Promise<Record<string, unknown>> {
  const { run, template, ctx } = launch;
  const [inventory] = run.inventory_id ? await tx.query<Row>('SELECT id, name, kind FROM inventories WHERE id = $1', [run.inventory_id]) : [];
  // A job over several inventories (docs/job-templates.md, "Several inventories"): the extra ones, in order.
  const inventories = await tx.query<Row>(
    'SELECT i.id, i.name, i.kind FROM job_inventories l JOIN inventories i ON i.id = l.inventory_id WHERE l.job_id = $1 ORDER BY l.position',
    [run.id],
  );
  const credentials = await tx.query<Row>(
    `SELECT c.id, c.name, t.kind FROM credentials c JOIN credential_types t ON t.id = c.credential_type_id
     WHERE c.id IN (SELECT credential_id FROM unified_job_credentials WHERE unified_job_id = $1) OR c.id = $2 ORDER BY c.id`,
    [run.id, run.credential_id],
  );
  const resource = resourceIsRun || !template ? { id: run.id, name: run.name } : { id: Number(template.id), name: String(template.name) };
  return {
    resource_type: resourceType,
    resource_id: resource.id,
    resource_name: resource.name,
    organization_id: organization.id,
    organization_name: organization.name,
    user: { id: ctx.user?.id ?? null, username: ctx.user?.username ?? '', is_superuser: ctx.user?.isSuperuser === true },
    extra_vars: maskedExtraVars(run),
    inventory: inventory ? { id: inventory.id, name: inventory.name, kind: inventory.kind } : null,
    // Only for a run over several inventories, so the document stays the specification's otherwise.
    ...(inventories.length && { inventories: inventories.map((i) => ({ id: i.id, name: i.name, kind: i.kind })) }),
    credentials: credentials.map((c) => ({ id: c.id, name: c.name, kind: c.kind })),
    playbook: run.playbook ?? '',
    now_iso: new Date().toISOString(),
    client_ip: ctx.clientIp ?? '',
    trigger: launch.trigger,
  };
}
