/** The activity stream entries and audit events of a request's submit, approval and rejection, written in its transaction. */
import type { FastifyRequest } from 'fastify';
import { HIDDEN, recordActivity } from '../../activity/record.ts';
import type { RequestContext } from '../../api/context.ts';
import { clientOf, recordAudit, type AuditEventType } from '../../audit/record.ts';
import type { Queryable } from '../../db/database.ts';
import type { ServiceCatalogItemRow, ServiceRequestRow } from '../../db/tables.ts';
import { isEncryptedSecret } from '../../secrets/encryption.ts';

const AUDITED: Record<'submitted' | 'approved' | 'rejected', AuditEventType> = {
  submitted: 'catalog.request_submitted',
  approved: 'catalog.request_approved',
  rejected: 'catalog.request_rejected',
};

const masked = (answers: unknown) =>
  Object.fromEntries(Object.entries((answers ?? {}) as Record<string, unknown>).map(([name, value]) => [name, isEncryptedSecret(value) ? HIDDEN : value]));

/**
 * Records what happened to the request: an activity stream entry (its creation, or its status
 * changing from `before`) and an audit event naming the item, the requester and the run.
 */
export async function recordRequest(
  tx: Queryable, ctx: RequestContext, http: FastifyRequest, what: keyof typeof AUDITED,
  request: ServiceRequestRow, item: Pick<ServiceCatalogItemRow, 'id' | 'name'>, before?: string,
): Promise<void> {
  const changes = what === 'submitted'
    ? { catalog_item: item.id, status: request.status, justification: request.justification, extra_vars: masked(request.extra_vars), unified_job: request.unified_job_id }
    : { status: [before, request.status], ...(what === 'rejected' ? { reason: request.reason } : { unified_job: [null, request.unified_job_id] }) };
  await recordActivity(tx, ctx, { operation: what === 'submitted' ? 'create' : 'update', object1: 'service_request', object1Id: request.id, changes });
  await recordAudit(tx, {
    type: AUDITED[what],
    ctx,
    client: clientOf(http),
    target: { type: 'service_request', id: request.id, name: item.name },
    detail: {
      catalog_item: item.id,
      organization: request.organization_id,
      requester: request.requester_id,
      status: request.status,
      unified_job: request.unified_job_id,
      ...(request.refusal_detail && { refusal: request.refusal_detail }),
    },
  });
}
