/**
 * POST /api/v2/bulk/job_launch/ (AWX's BulkJobLaunchSerializer): many templates launched in one
 * request, as the nodes of one workflow job with no template (is_bulk_job). The request checks what
 * AWX checks (the limit, the caller's roles on every template and object named, the organization);
 * the workflow pass then starts each node's run through the launch service, as for any workflow
 * node, so every gate (quotas, policy, scanners) judges each run, and a refused one fails its node.
 */
import { isSuperuser, objectsWithRole } from '../../api/access.ts';
import type { RequestContext } from '../../api/context.ts';
import { ApiError, ValidationError } from '../../api/errors.ts';
import { FieldProblem } from '../../api/fields.ts';
import { Params } from '../../api/sql.ts';
import type { Queryable } from '../../db/database.ts';
import type { UnifiedJobRow } from '../../db/tables.ts';
import { isMapping, parseVariables, variablesProblem } from '../../inventory/variables.ts';
import { nodePromptFields } from '../../resources/workflow-job-templates/node-prompt-fields.ts';
import { createRun } from '../../runs/lifecycle.ts';
import { WORKFLOW_JOB } from './workflow-job-kind-ref.ts';
import { randomUUID } from 'node:crypto';

/** One job of the request: its template, the prompts it gives and the objects it names. */
interface BulkNode {
  template: number;
  identifier: string;
  columns: Record<string, unknown>;
  extraData: Record<string, unknown>;
  credentials: number[];
  labels: number[];
  instanceGroups: number[];
}

export interface BulkLaunch {
  name: string;
  description: string;
  extraVars: string;
  organization: number | null;
  inventory?: number;
  columns: Record<string, string>;
  nodes: BulkNode[];
}

const nonField = (message: string) => new ValidationError({ __all__: [message] });
/** Python's repr of a set of ids, as AWX's messages print them. */
const pySet = (ids: Iterable<number>) => `{${[...ids].sort((a, b) => a - b).join(', ')}}`;

const ID = (value: unknown): number | undefined => (typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= 2147483647 ? value : undefined);
const PROMPTS = nodePromptFields();
/** The prompts a job of the request may give in a column of the node (the objects are read apart). */
const SCALAR_PROMPTS = ['scm_branch', 'job_type', 'job_tags', 'skip_tags', 'limit', 'diff_mode', 'verbosity', 'forks', 'job_slice_count', 'timeout'] as const;

function readNode(raw: unknown, errors: Record<string, string[]>): BulkNode | undefined {
  if (!isMapping(raw)) {
    errors.non_field_errors = ['Invalid data. Expected a dictionary, but got list.'];
    return undefined;
  }
  const template = ID(raw.unified_job_template);
  if (raw.unified_job_template === undefined || raw.unified_job_template === null) errors.unified_job_template = ['This field is required.'];
  else if (template === undefined) errors.unified_job_template = ['A valid integer is required.'];
  const columns: Record<string, unknown> = {};
  for (const field of ['inventory', 'execution_environment'] as const) {
    if (raw[field] === undefined) continue;
    const id = ID(raw[field]);
    if (id === undefined) errors[field] = ['A valid integer is required.'];
    else columns[`${field}_id`] = id;
  }
  for (const field of SCALAR_PROMPTS) {
    if (raw[field] === undefined) continue;
    try {
      const declared = PROMPTS[field];
      const value = declared.parse(raw[field]);
      if (value !== null && declared.choices && !declared.choices.some(([v]) => v === value)) throw new FieldProblem(`"${String(value)}" is not a valid choice.`);
      columns[field] = value;
    } catch (err) {
      if (!(err instanceof FieldProblem)) throw err;
      errors[field] = [err.message];
    }
  }
  const lists: Record<'credentials' | 'labels' | 'instance_groups', number[]> = { credentials: [], labels: [], instance_groups: [] };
  for (const field of Object.keys(lists) as (keyof typeof lists)[]) {
    const given = raw[field];
    if (given === undefined || given === null) continue;
    if (!Array.isArray(given)) errors[field] = [`Expected a list of items but got type "${typeof given === 'object' ? 'dict' : typeof given}".`];
    else if (given.some((v) => ID(v) === undefined)) errors[field] = ['A valid integer is required.'];
    else lists[field] = [...new Set(given as number[])];
  }
  let extraData: Record<string, unknown> = {};
  if (raw.extra_data !== undefined && raw.extra_data !== null) {
    if (isMapping(raw.extra_data)) extraData = raw.extra_data;
    else if (typeof raw.extra_data === 'string' && !variablesProblem(raw.extra_data)) extraData = parseVariables(raw.extra_data);
    else errors.extra_data = ['Must be a valid JSON or YAML dictionary.'];
  }
  let identifier: string = randomUUID();
  if (raw.identifier !== undefined) {
    if (typeof raw.identifier !== 'string' || !raw.identifier || raw.identifier.length > 512) errors.identifier = ['Not a valid string.'];
    else identifier = raw.identifier;
  }
  if (Object.keys(errors).length) return undefined;
  return { template: template!, identifier, columns, extraData, credentials: lists.credentials, labels: lists.labels, instanceGroups: lists.instance_groups };
}

function optionalText(body: Record<string, unknown>, field: string, errors: Record<string, unknown>, max = Infinity): string | undefined {
  const value = body[field];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') errors[field] = ['Not a valid string.'];
  else if (!value) errors[field] = ['This field may not be blank.'];
  else if (value.length > max) errors[field] = [`Ensure this field has no more than ${max} characters.`];
  else return value;
  return undefined;
}

/** The request's body read as AWX's serializer reads it, or a 400 naming each problem. */
export function readBulkLaunch(body: Record<string, unknown>): BulkLaunch {
  const errors: Record<string, unknown> = {};
  let name = 'Bulk Job Launch';
  if (body.name !== undefined && body.name !== null) {
    if (typeof body.name !== 'string') errors.name = ['Not a valid string.'];
    else if (body.name.length > 512) errors.name = ['Ensure this field has no more than 512 characters.'];
    else name = body.name;
  }
  const description = optionalText(body, 'description', errors) ?? '';
  const columns: Record<string, string> = {};
  for (const [field, max] of [['limit', Infinity], ['scm_branch', 1024], ['skip_tags', Infinity], ['job_tags', Infinity]] as const) {
    const value = optionalText(body, field, errors, max);
    if (value !== undefined) columns[field] = value;
  }
  let extraVars = '{}';
  if (body.extra_vars !== undefined && body.extra_vars !== null) {
    if (isMapping(body.extra_vars)) extraVars = JSON.stringify(body.extra_vars);
    else if (typeof body.extra_vars === 'string' && !variablesProblem(body.extra_vars)) extraVars = JSON.stringify(parseVariables(body.extra_vars));
    else errors.extra_vars = ['Must be a valid JSON or YAML dictionary.'];
  }
  let organization: number | null = null;
  if (body.organization !== undefined && body.organization !== null && body.organization !== '') {
    const id = ID(typeof body.organization === 'string' && /^\d+$/.test(body.organization) ? Number(body.organization) : body.organization);
    if (id === undefined) errors.organization = [`Incorrect type. Expected pk value, received ${typeof body.organization === 'string' ? 'str' : typeof body.organization}.`];
    else organization = id;
  }
  let inventory: number | undefined;
  if (body.inventory !== undefined && body.inventory !== null) {
    inventory = ID(typeof body.inventory === 'string' && /^\d+$/.test(body.inventory) ? Number(body.inventory) : body.inventory);
    if (inventory === undefined) errors.inventory = [`Incorrect type. Expected pk value, received ${typeof body.inventory === 'string' ? 'str' : typeof body.inventory}.`];
  }
  const nodes: BulkNode[] = [];
  if (body.jobs === undefined || body.jobs === null) errors.jobs = ['This field is required.'];
  else if (!Array.isArray(body.jobs)) errors.jobs = [`Expected a list of items but got type "${typeof body.jobs === 'object' ? 'dict' : typeof body.jobs}".`];
  else if (!body.jobs.length) errors.jobs = { non_field_errors: ['This list may not be empty.'] };
  else {
    const problems = body.jobs.map((raw) => {
      const nodeErrors: Record<string, string[]> = {};
      const node = readNode(raw, nodeErrors);
      if (node) nodes.push(node);
      return nodeErrors;
    });
    if (problems.some((p) => Object.keys(p).length)) errors.jobs = problems;
  }
  if (Object.keys(errors).length) throw new ApiError(400, errors);
  return { name, description, extraVars, organization, inventory, columns, nodes };
}

/** What a template kind needs of the caller, and AWX's plural for its messages. */
const TEMPLATE_KINDS: Record<string, { contentType: string; role: string; plural: string; via?: string }> = {
  job_template: { contentType: 'job_template', role: 'execute_role', plural: 'Job Templates' },
  workflow_job_template: { contentType: 'workflow_job_template', role: 'execute_role', plural: 'Workflow Job Templates' },
  project: { contentType: 'project', role: 'update_role', plural: 'Projects' },
  // A source's update_role is its inventory's.
  inventory_source: { contentType: 'inventory', role: 'update_role', plural: 'Inventory Sources', via: 'SELECT id, inventory_id AS owner FROM inventory_sources WHERE id = ANY($1::int[])' },
};
const TEMPLATE_LABELS: Record<string, string> = { workflow_approval_template: 'Workflow Approval Template', system_job_template: 'System Job Template' };

/** Refuses the ids the caller holds none of `roles` on (AWX's check_list_permission with a role). */
async function checkRole(tx: Queryable, ctx: RequestContext, ids: Iterable<number>, contentType: string, role: string, plural: string, ownerOf?: string): Promise<void> {
  const wanted = [...new Set(ids)];
  if (!wanted.length) return;
  if (isSuperuser(ctx)) {
    // Everything is allowed, but only what exists.
    const table = { inventory: 'inventories', credential: 'credentials' }[contentType];
    if (!table) return;
    const found = new Set((await tx.query<{ id: number }>(`SELECT id FROM ${table} WHERE id = ANY($1::int[])`, [wanted])).map((r) => r.id));
    const missing = wanted.filter((id) => !found.has(id));
    if (missing.length) throw nonField(`${plural} ${pySet(missing)} not found or you don't have permissions to access it`);
    return;
  }
  const owners = ownerOf ? await tx.query<{ id: number; owner: number }>(ownerOf, [wanted]) : wanted.map((id) => ({ id, owner: id }));
  const held = new Set((await tx.query<{ object_id: number }>(`SELECT object_id FROM (${objectsWithRole(contentType, [role], '$1')}) AS r WHERE object_id = ANY($2::int[])`, [ctx.user?.id ?? 0, owners.map((o) => o.owner)])).map((r) => r.object_id));
  const allowed = new Set(owners.filter((o) => held.has(o.owner)).map((o) => o.id));
  const refused = wanted.filter((id) => !allowed.has(id));
  if (refused.length) throw nonField(`${plural} ${pySet(refused)} not found or you don't have permissions to access it`);
}

/** Refuses the ids the caller may not see (AWX's check_list_permission without a role: read access). */
async function checkVisible(tx: Queryable, ctx: RequestContext, ids: Iterable<number>, resourceName: string, plural: string): Promise<void> {
  const wanted = [...new Set(ids)];
  if (!wanted.length) return;
  const resource = ctx.service.resources.get(resourceName);
  const params = new Params();
  const idsParam = params.add(wanted);
  const visible = resource.access.visible(ctx, 't', params);
  const seen = new Set((await tx.query<{ id: number }>(`SELECT t.id FROM ${resource.table} t WHERE t.id = ANY(${idsParam}::int[])${visible ? ` AND ${visible}` : ''}`, params.values)).map((r) => r.id));
  const refused = wanted.filter((id) => !seen.has(id));
  if (refused.length) throw nonField(`${plural} ${pySet(refused)} not found or you don't have permissions to access it`);
}

/** The organization the bulk job belongs to (AWX's check_organization_permission). */
async function organizationOf(tx: Queryable, ctx: RequestContext, requested: number | null): Promise<number | null> {
  if (requested !== null) {
    const [org] = await tx.query('SELECT id FROM organizations WHERE id = $1', [requested]);
    if (!org) throw new ValidationError({ organization: [`Invalid pk "${requested}" - object does not exist.`] });
  }
  if (isSuperuser(ctx)) return requested;
  const member = (await tx.query<{ object_id: number }>(`SELECT DISTINCT object_id FROM (${objectsWithRole('organization', ['member_role'], '$1')}) AS r ORDER BY object_id`, [ctx.user?.id ?? 0])).map((r) => r.object_id);
  if (requested === null) {
    if (member.length === 1) return member[0];
    if (member.length > 1) throw nonField('User has permission to multiple Organizations, please set one of them in the request');
    throw nonField('User not part of any organization, please assign an organization to assign to the bulk job');
  }
  if (!member.includes(requested)) throw nonField(`Organization ${requested} not found or you don't have permissions to access it`);
  return requested;
}

/** Checks the request as AWX does, in AWX's order, then stores the bulk job and its nodes and queues it. */
export async function launchBulkJob(tx: Queryable, ctx: RequestContext, launch: BulkLaunch): Promise<UnifiedJobRow> {
  const max = ctx.service.settings.get<number>('BULK_JOB_MAX_LAUNCH');
  if (launch.nodes.length > max) throw nonField('Number of requested jobs exceeds system setting BULK_JOB_MAX_LAUNCH');
  const identifiers = new Set<string>();
  for (const node of launch.nodes) {
    if (identifiers.has(node.identifier)) throw nonField(`Identifier ${node.identifier} not unique`);
    identifiers.add(node.identifier);
  }
  const templateIds = [...new Set(launch.nodes.map((n) => n.template))];
  const templates = await tx.query<{ id: number; kind: string }>('SELECT id, kind FROM unified_job_templates WHERE id = ANY($1::int[])', [templateIds]);
  const missing = templateIds.filter((id) => !templates.some((t) => t.id === id));
  if (missing.length) throw nonField(`Unified Job Templates ${pySet(missing)} not found or you don't have permissions to access it`);
  const unallowed = [...new Set(templates.map((t) => t.kind).filter((k) => !TEMPLATE_KINDS[k]))];
  if (unallowed.length) throw nonField(`Template types ${unallowed.map((k) => TEMPLATE_LABELS[k] ?? k).join(' ')} not allowed in bulk jobs`);
  for (const [kind, rule] of Object.entries(TEMPLATE_KINDS)) {
    await checkRole(tx, ctx, templates.filter((t) => t.kind === kind).map((t) => t.id), rule.contentType, rule.role, rule.plural, rule.via);
  }
  const organization = await organizationOf(tx, ctx, launch.organization);
  const inventories = launch.nodes.flatMap((n) => (n.columns.inventory_id ? [n.columns.inventory_id as number] : []));
  if (launch.inventory) {
    const [inventory] = await tx.query('SELECT id FROM inventories WHERE id = $1', [launch.inventory]);
    if (!inventory) throw new ValidationError({ inventory: [`Invalid pk "${launch.inventory}" - object does not exist.`] });
    inventories.push(launch.inventory);
  }
  await checkRole(tx, ctx, inventories, 'inventory', 'use_role', 'Inventories');
  await checkRole(tx, ctx, launch.nodes.flatMap((n) => n.credentials), 'credential', 'use_role', 'Credentials');
  await checkVisible(tx, ctx, launch.nodes.flatMap((n) => n.labels), 'label', 'Labels');
  await checkVisible(tx, ctx, launch.nodes.flatMap((n) => n.instanceGroups), 'instance_group', 'Instance Groups');
  await checkVisible(tx, ctx, launch.nodes.flatMap((n) => (n.columns.execution_environment_id ? [n.columns.execution_environment_id as number] : [])), 'execution_environment', 'Execution Environments');

  const values = {
    name: launch.name, description: launch.description, extra_vars: launch.extraVars, organization_id: organization,
    inventory_id: launch.inventory ?? null, ...launch.columns, is_bulk_job: true, launch_type: 'manual', task_impact: 0,
  };
  return createRun(tx, ctx, WORKFLOW_JOB, values, (run) => storeNodes(tx, ctx, run, launch.nodes));
}

const NODE_COLUMNS = ['inventory_id', 'execution_environment_id', ...SCALAR_PROMPTS] as const;

/** The nodes, with no edges (every job starts at once), their objects, and the caller as one the bulk job is shown to. */
async function storeNodes(tx: Queryable, ctx: RequestContext, run: UnifiedJobRow, nodes: readonly BulkNode[]): Promise<void> {
  const actor = ctx.user?.id ?? null;
  const column = (name: string) => nodes.map((n) => (n.columns[name] ?? null));
  const types: Record<string, string> = { inventory_id: 'int', execution_environment_id: 'int', diff_mode: 'boolean', verbosity: 'int', forks: 'int', job_slice_count: 'int', timeout: 'int' };
  const arrays = NODE_COLUMNS.map((c, i) => `$${i + 5}::${types[c] ?? 'text'}[]`);
  const made = await tx.query<{ id: number; identifier: string }>(
    `INSERT INTO workflow_job_nodes (workflow_job_id, created_by_id, modified_by_id, unified_job_template_id, identifier, extra_data, ${NODE_COLUMNS.map((c) => `"${c}"`).join(', ')})
     SELECT $1, $2, $2, x.* FROM unnest($3::int[], $4::text[], $${NODE_COLUMNS.length + 5}::jsonb[], ${arrays.join(', ')}) AS x
     RETURNING id, identifier`,
    [run.id, actor, nodes.map((n) => n.template), nodes.map((n) => n.identifier), ...NODE_COLUMNS.map(column), nodes.map((n) => JSON.stringify(n.extraData))],
  );
  const idOf = new Map(made.map((m) => [m.identifier, m.id]));
  const pairs = (pick: (n: BulkNode) => number[]) => nodes.flatMap((n) => pick(n).map((object, position) => [idOf.get(n.identifier)!, object, position]));
  const insert = async (table: string, column: string, rows: number[][], positioned = false) => {
    if (!rows.length) return;
    await tx.query(
      `INSERT INTO ${table} (node_id, ${column}${positioned ? ', position' : ''}) SELECT n, o${positioned ? ', p' : ''} FROM unnest($1::int[], $2::int[], $3::int[]) AS x(n, o, p)`,
      [rows.map((r) => r[0]), rows.map((r) => r[1]), rows.map((r) => r[2])],
    );
  };
  await insert('workflow_job_node_credentials', 'credential_id', pairs((n) => n.credentials));
  await insert('workflow_job_node_labels', 'label_id', pairs((n) => n.labels));
  await insert('workflow_job_node_instance_groups', 'instance_group_id', pairs((n) => n.instanceGroups), true);
  if (actor) await tx.query('INSERT INTO run_viewers (user_id, unified_job_id) VALUES ($1, $2) ON CONFLICT DO NOTHING', [actor, run.id]);
}
