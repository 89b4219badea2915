/**
 * A launch by a webhook delivery, for any template kind: the kind's own launcher makes the run
 * (as the system would, with the template's own settings); this wraps it so that each delivery
 * launches at most once and the run carries the webhook's fields and variables.
 */
import { ApiError } from '../../api/errors.ts';
import type { Queryable, Row } from '../../db/database.ts';
import type { Launcher } from '../run-kind.ts';
import type { LaunchMemo } from '../launch-memo.ts';

/**
 * What a kind's webhook launcher is given. The launcher plans the run as the system would (no
 * permission check: the key was checked), with launch_type 'webhook' and `extraVars` added to the
 * template's own; launchingOnce adds `columns` to the run.
 */
export interface WebhookLaunch {
  service: string;
  guid: string;
  /** awx_webhook_* and tower_webhook_*: user data, which reaches Ansible unsafe. */
  extraVars: Record<string, unknown>;
  /** The run's columns webhook_service, webhook_credential_id and webhook_guid. */
  columns: Record<string, unknown>;
  /** Reads shared with the other launches of a batch (event rules firing). */
  memo?: LaunchMemo;
}

/**
 * The variables of a delivery, under each prefix AWX gives job variables. The extra vars file
 * marks these names unsafe whatever ALLOW_JINJA_IN_EXTRA_VARS says (src/ansible/extra-vars-file.ts).
 */
export function webhookExtraVars(event: { type: string; guid: string; ref: string | null; statusApi: string | null }, payload: unknown): Record<string, unknown> {
  const vars: Record<string, unknown> = {};
  for (const prefix of ['awx', 'tower']) {
    vars[`${prefix}_webhook_event_type`] = event.type;
    vars[`${prefix}_webhook_event_guid`] = event.guid;
    vars[`${prefix}_webhook_event_ref`] = event.ref;
    vars[`${prefix}_webhook_status_api`] = event.statusApi;
    vars[`${prefix}_webhook_payload`] = payload;
  }
  return vars;
}

/** A delivery already received: answered 202 with the run it launched, launching nothing. */
export class AlreadyDelivered extends ApiError {
  constructor(runId: number | null) {
    super(202, { message: 'Webhook previously received, aborting.', ...(runId !== null && { job: runId }) });
  }
}

/**
 * Records the delivery in the launch's transaction before planning: the unique constraint makes
 * a concurrent duplicate wait for this transaction, then find the row and launch nothing; a
 * refused launch rolls the record back, so the delivery may be sent again.
 */
export function launchingOnce<T extends Row>(table: string, launcher: Launcher<WebhookLaunch, T>): Launcher<WebhookLaunch, T> {
  return {
    kind: launcher.kind,
    async plan(tx: Queryable, ctx, template, input) {
      const [recorded] = await tx.query<{ id: number }>(
        `INSERT INTO webhook_deliveries (template_table, template_id, service, guid) VALUES ($1, $2, $3, $4)
         ON CONFLICT (template_table, template_id, service, guid) DO NOTHING RETURNING id`,
        [table, template!.id, input.service, input.guid],
      );
      if (!recorded) {
        const [earlier] = await tx.query<{ run_id: number | null }>(
          'SELECT run_id FROM webhook_deliveries WHERE template_table = $1 AND template_id = $2 AND service = $3 AND guid = $4',
          [table, template!.id, input.service, input.guid],
        );
        throw new AlreadyDelivered(earlier?.run_id ?? null);
      }
      const plan = await launcher.plan(tx, ctx, template, input);
      return {
        ...plan,
        values: { ...plan.values, ...input.columns },
        link: async (q, run) => {
          await plan.link?.(q, run);
          await q.query('UPDATE webhook_deliveries SET run_id = $2 WHERE id = $1', [recorded.id, run.id]);
        },
      };
    },
  };
}
