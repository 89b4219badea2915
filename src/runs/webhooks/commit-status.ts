/**
 * Commit statuses (AWX's WebhookMixin.update_webhook_status): a run launched by a webhook of a
 * template with a webhook credential reports "pending" once launched and its final state once it
 * finishes, to the status API the delivery named, through the outbound guard. Each state is
 * claimed in the database before it is sent, so one node posts it once; a failure is noted in
 * the run's explanation and never changes the run's status.
 */
import type { RunServices } from '../run-services.ts';
import type { Database } from '../../db/database.ts';
import { parseVariables } from '../../inventory/variables.ts';
import { OutboundFailed, OutboundRefused, outboundPolicy, sendOutbound } from '../../net/outbound.ts';
import { clearInputs, type CredentialTypeRow } from '../../resources/credentials/credential-inputs.ts';
import { FINAL_STATUSES } from '../lifecycle.ts';
import type { CommitState } from './provider.ts';
import { providerOf } from './providers.ts';

const BATCH = 20;
const TIMEOUT_MS = 30_000;

interface Claimed {
  id: number;
  kind: string;
  status: CommitState;
  webhook_service: string;
  webhook_credential_id: number;
  extra_vars: string | null;
}

/** Claims the runs with a state to report: finished ones (final), the others once (pending). */
async function claim(db: Database): Promise<Claimed[]> {
  return db.query<Claimed>(
    `UPDATE unified_jobs u SET webhook_status_posted = CASE WHEN u.status = ANY($1::text[]) THEN 'final' ELSE 'pending' END
     FROM (SELECT id FROM unified_jobs
           WHERE webhook_credential_id IS NOT NULL AND webhook_status_posted <> 'final'
             AND (status = ANY($1::text[]) OR webhook_status_posted = '')
           ORDER BY id LIMIT ${BATCH} FOR UPDATE SKIP LOCKED) c
     WHERE u.id = c.id
     RETURNING u.id, u.kind, u.status, u.webhook_service, u.webhook_credential_id, u.extra_vars`,
    [[...FINAL_STATUSES]],
  );
}

async function tokenOf(db: Database, credentialId: number): Promise<string | null> {
  const [row] = await db.query<CredentialTypeRow & { stored: Record<string, unknown> }>(
    'SELECT t.id, t.name, t.kind, t.namespace, t.managed, t.inputs, t.injectors, c.inputs AS stored FROM credentials c JOIN credential_types t ON t.id = c.credential_type_id WHERE c.id = $1',
    [credentialId],
  );
  const token = row ? clearInputs(row, row.stored ?? {}).token : null;
  return typeof token === 'string' && token ? token : null;
}

/** Where the run is shown (AWX's get_ui_url): its kind's page in the UI. */
function runUrl(services: RunServices, run: Claimed): string {
  const base = String(services.settings.get('SVC_URL_BASE') ?? '');
  return `${base}/#/jobs/${services.runKinds.get(run.kind).messages?.ui ?? 'playbook'}/${run.id}`;
}

/** Posts one run's state; answers why it could not, or null. */
async function post(services: RunServices, run: Claimed): Promise<string | null> {
  const provider = providerOf(run.webhook_service);
  const statusApi = parseVariables(run.extra_vars).awx_webhook_status_api;
  if (!provider || typeof statusApi !== 'string' || !statusApi) return null;
  const token = await tokenOf(services.db, run.webhook_credential_id);
  if (!token) return 'the webhook credential has no token';
  const state: CommitState = (FINAL_STATUSES as readonly string[]).includes(run.status) ? run.status : 'pending';
  const request = provider.statusRequest(token, state, runUrl(services, run));
  try {
    const response = await sendOutbound({
      url: statusApi, method: 'POST', timeoutMs: TIMEOUT_MS, maxResponseBytes: 64 * 1024, maxRedirects: 0,
      headers: { ...request.headers, 'Content-Type': 'application/json' }, body: JSON.stringify(request.body),
    }, outboundPolicy(services.settings));
    return response.status < 400 ? null : `the service answered ${response.status}`;
  } catch (err) {
    if (err instanceof OutboundRefused || err instanceof OutboundFailed) return err.message;
    throw err;
  }
}

/** Posts the states there are to post; answers how many runs were handled. */
export async function postCommitStatuses(services: RunServices): Promise<number> {
  const runs = await claim(services.db);
  await Promise.all(runs.map(async (run) => {
    const problem = await post(services, run);
    if (!problem) return;
    const note = `Posting the commit status (${run.status}) to ${run.webhook_service} failed: ${problem}`;
    services.logger.warn(`run ${run.id}: ${note}`);
    await services.db.query(
      `UPDATE unified_jobs SET job_explanation = CASE WHEN job_explanation = '' THEN $2 ELSE job_explanation || E'\\n' || $2 END WHERE id = $1`,
      [run.id, note],
    );
  }));
  return runs.length;
}
