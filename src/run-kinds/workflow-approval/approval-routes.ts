/** POST /workflow_approvals/{id}/approve/ and deny/: the workflow's approval_role answers a pending approval. */
import { recordActivity } from '../../activity/record.ts';
import { OPTIONS_RESPONSE } from '../../api/action-schemas.ts';
import { ApiError } from '../../api/errors.ts';
import { viewOptions } from '../../api/options.ts';
import { objectPermission } from '../../api/permissions.ts';
import { routeMethods } from '../../api/resource-routes.ts';
import type { UnifiedJobRow } from '../../db/tables.ts';
import { finishRun } from '../../runs/lifecycle.ts';
import type { RunRouteModule } from '../../runs/run-services.ts';

export const approvalRoutes: RunRouteModule = (app, services) => {
  const { db } = services;
  for (const [action, status] of [['approve', 'successful'], ['deny', 'failed']] as const) {
    routeMethods(app, `/api/v2/workflow_approvals/:id/${action}/`, objectPermission('workflow_approval', { POST: 'approve' }), {
      GET: async () => ({}),
      POST: async (request, reply) => {
        await db.transaction(async (tx) => {
          const [locked] = await tx.query<UnifiedJobRow>('SELECT * FROM unified_jobs WHERE id = $1 FOR UPDATE', [request.object.id]);
          if (locked.status !== 'pending') throw new ApiError(400, { error: 'This workflow step has already been approved or denied.' });
          await finishRun(tx, services.runKinds, locked, {
            status,
            explanation: status === 'failed' ? 'The approval was denied.' : '',
            updates: { approved_or_denied_by_id: request.ctx.user?.id ?? null },
          });
          await recordActivity(tx, request.ctx, { operation: 'update', object1: 'workflow_approval', object1Id: locked.id, changes: { status: ['pending', status] } });
        });
        return reply.code(204).send();
      },
      OPTIONS: async () => viewOptions(`Workflow Approval ${action === 'approve' ? 'Approve' : 'Deny'}`, `POST: ${action}s the pending approval.`),
    }, { POST: { summary: `${action === 'approve' ? 'Approve' : 'Deny'} a pending approval` }, OPTIONS: OPTIONS_RESPONSE });
  }
};
