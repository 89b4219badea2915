/**
 * Launching a request's item (at submit without approval, or at approval), inside the request's
 * transaction: through the catalog launcher of the run kind whose templates the item's is, and so
 * through the launch service and every gate, as the requester. A refusal (a gate's, or a template
 * that cannot start without input) leaves no run: the request ends failed with the refusal.
 */
import { callerIn } from '../../api/context.ts';
import type { Queryable, Row } from '../../db/database.ts';
import type { ServiceCatalogItemRow, ServiceRequestRow, UserRow } from '../../db/tables.ts';
import type { Refusal } from '../../runs/launch.ts';
import type { RunServices } from '../../runs/run-services.ts';
import { notifyRequest } from './request-notifications.ts';

/** The template an item launches: its table and row (null once deleted). */
export async function itemTemplate(tx: Queryable, item: ServiceCatalogItemRow): Promise<{ table: string; workflow: boolean; row: Row | null }> {
  const workflow = item.workflow_job_template_id !== null;
  const table = workflow ? 'workflow_job_templates' : 'job_templates';
  const [row] = await tx.query(`SELECT * FROM ${table} WHERE id = $1`, [workflow ? item.workflow_job_template_id : item.job_template_id]);
  return { table, workflow, row: row ?? null };
}

/** A refusal as the request keeps it: its detail, and its reasons (a gate's, or each field's problems). */
function refusalOf(refusal: Refusal): { detail: string; reasons: string[] } {
  const { detail, reasons, ...fields } = refusal.body;
  const listed = Array.isArray(reasons) ? reasons.map(String) : [];
  const problems = Object.entries(fields).flatMap(([field, value]) => [value].flat().map((problem) => `${field}: ${typeof problem === 'string' ? problem : JSON.stringify(problem)}`));
  return { detail: typeof detail === 'string' ? detail : 'The launch was refused.', reasons: [...listed, ...problems] };
}

async function failed(tx: Queryable, request: ServiceRequestRow, refusal: Refusal): Promise<ServiceRequestRow> {
  const { detail, reasons } = refusalOf(refusal);
  const [row] = await tx.query<ServiceRequestRow>(
    `UPDATE service_requests SET status = 'failed', refusal_detail = $2, refusal_reasons = $3::jsonb, modified = now() WHERE id = $1 RETURNING *`,
    [request.id, detail, JSON.stringify(reasons)],
  );
  await notifyRequest(tx, row, 'finished');
  return row;
}

/**
 * Launches the request's item as its requester and answers the request as it then is: running
 * with its run, or failed with the refusal. `clientIp`: the requester's address, at submit.
 */
export async function launchRequest(
  tx: Queryable, services: RunServices, request: ServiceRequestRow, item: ServiceCatalogItemRow, clientIp?: string,
): Promise<ServiceRequestRow> {
  const template = await itemTemplate(tx, item);
  const launcher = services.runKinds.forTemplateTable(template.table)?.launchers?.catalog;
  if (!launcher) throw new Error(`no run kind launches ${template.table} from the catalog`);
  const [requester] = request.requester_id === null ? []
    : await tx.query<Pick<UserRow, 'id' | 'username' | 'is_superuser' | 'is_system_auditor'>>('SELECT id, username, is_superuser, is_system_auditor FROM users WHERE id = $1', [request.requester_id]);
  if (!requester) return failed(tx, request, { status: 400, body: { detail: 'The requester no longer exists.' } });
  if (!template.row) return failed(tx, request, { status: 400, body: { detail: "The catalog item's template no longer exists." } });
  const ctx = { ...callerIn(services, { id: requester.id, username: requester.username, isSuperuser: requester.is_superuser, isSystemAuditor: requester.is_system_auditor }), clientIp };
  const launched = await services.launches.launchWithin(tx, ctx, launcher, template.row, {
    item,
    request: { id: request.id },
    answers: (request.extra_vars ?? {}) as Record<string, unknown>,
    nodeAnswers: (request.node_survey_data ?? {}) as Record<string, Record<string, unknown>>,
    requester: { id: requester.id, username: requester.username },
  });
  if (!launched.ok) return failed(tx, request, launched.refusal);
  // The requester follows the run on its pages, though no role on the template may show it to him.
  await tx.query('INSERT INTO run_viewers (user_id, unified_job_id) VALUES ($1, $2) ON CONFLICT DO NOTHING', [requester.id, launched.run.id]);
  const [row] = await tx.query<ServiceRequestRow>(
    `UPDATE service_requests SET status = 'running', unified_job_id = $2, modified = now() WHERE id = $1 RETURNING *`,
    [request.id, launched.run.id],
  );
  return row;
}
