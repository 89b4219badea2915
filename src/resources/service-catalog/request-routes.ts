/**
 * What approvers do with requests (docs/service-catalog.md#approval): GET pending_approvals/ (the
 * pending requests they may decide), POST approve/ (launches) and reject/ {reason}. Each answers
 * the request; a request that is no longer pending answers 400.
 */
import type { FastifyRequest } from 'fastify';
import { actorId, type RequestContext } from '../../api/context.ts';
import { badRequest } from '../../api/errors.ts';
import { boolean, text } from '../../api/fields.ts';
import { allows } from '../../api/route-objects.ts';
import { listPage, type Query } from '../../api/list.ts';
import { actionOptions, listOptions } from '../../api/options.ts';
import { AUTHENTICATED, objectPermission } from '../../api/permissions.ts';
import { routeMethods } from '../../api/resource-routes.ts';
import { validBody } from '../../api/route-schemas.ts';
import { serializeRow } from '../../api/serialize.ts';
import type { Queryable } from '../../db/database.ts';
import type { ServiceCatalogItemRow, ServiceRequestRow } from '../../db/tables.ts';
import type { RunServices, RunRouteModule } from '../../runs/run-services.ts';
import { decidableRequests } from './catalog-access.ts';
import { decisionSchemas, pendingSchemas, RejectBody } from './catalog-schemas.ts';
import { launchRequest } from './request-launch.ts';
import { notifyRequest } from './request-notifications.ts';
import { recordRequest } from './request-records.ts';
import { serviceRequests } from './service-request.resource.ts';

/** The request, locked, and its item: 400 unless it is pending. */
async function pendingRequest(tx: Queryable, id: number, action: string): Promise<{ request: ServiceRequestRow; item: ServiceCatalogItemRow | undefined }> {
  const [request] = await tx.query<ServiceRequestRow>('SELECT * FROM service_requests WHERE id = $1 FOR UPDATE', [id]);
  if (request.status !== 'pending_approval') throw badRequest(`The request is ${request.status}: only a pending_approval request can be ${action}.`);
  const [item] = request.catalog_item_id === null ? [] : await tx.query<ServiceCatalogItemRow>('SELECT * FROM service_catalog_items WHERE id = $1', [request.catalog_item_id]);
  return { request, item };
}

/** Records the decision on the request (its status, who, when) and answers it. */
async function decide(tx: Queryable, ctx: RequestContext, request: ServiceRequestRow, status: 'approved' | 'rejected', reason = ''): Promise<ServiceRequestRow> {
  const [row] = await tx.query<ServiceRequestRow>(
    `UPDATE service_requests SET status = $2, decided_by_id = $3, decided_at = now(), reason = $4, modified = now(), modified_by_id = $3 WHERE id = $1 RETURNING *`,
    [request.id, status, actorId(ctx), reason],
  );
  return row;
}

async function approve(services: RunServices, http: FastifyRequest, id: number): Promise<ServiceRequestRow> {
  return services.db.transaction(async (tx) => {
    const { request, item } = await pendingRequest(tx, id, 'approved');
    if (!item) throw badRequest('The catalog item of this request no longer exists: reject or delete the request.');
    if (!item.enabled) throw badRequest('The catalog item is disabled: enable it, or reject the request.');
    const approved = await decide(tx, http.ctx, request, 'approved');
    // The run is the requester's; the approver's address is not his.
    const launched = await launchRequest(tx, services, approved, item);
    await notifyRequest(tx, launched, 'approved');
    await recordRequest(tx, http.ctx, http, 'approved', launched, item, request.status);
    return launched;
  });
}

async function reject(services: RunServices, http: FastifyRequest, id: number, reason: string): Promise<ServiceRequestRow> {
  return services.db.transaction(async (tx) => {
    const { request, item } = await pendingRequest(tx, id, 'rejected');
    const rejected = await decide(tx, http.ctx, request, 'rejected', reason);
    await notifyRequest(tx, rejected, 'rejected');
    await recordRequest(tx, http.ctx, http, 'rejected', rejected, item ?? { id: 0, name: '' }, request.status);
    return rejected;
  });
}

export const serviceRequestRoutes: RunRouteModule = (app, services) => {
  const { db } = services;
  const base = serviceRequests.listPath;

  routeMethods(app, `${base}pending_approvals/`, AUTHENTICATED, {
    GET: async (request) => listPage(db, request.ctx, serviceRequests, request.url.split('?')[0], request.query as Query, (alias, params) =>
      `${alias}.status = 'pending_approval' AND ${decidableRequests(request.ctx, alias, params)}`),
    OPTIONS: async () => listOptions(services.resources, serviceRequests, false, 'Pending Service Request List'),
  }, pendingSchemas(serviceRequests));

  /** GET of approve/ and reject/: whether the caller may decide the request now. */
  const mayDecideNow = async (request: { ctx: RequestContext; object: ServiceRequestRow }) =>
    request.object.status === 'pending_approval' && (await allows(serviceRequests, 'decide', request.ctx, db, request.object));

  routeMethods<ServiceRequestRow>(app, `${base}:id/approve/`, objectPermission('service_request', { POST: 'decide' }), {
    GET: async (request) => ({ can_approve: await mayDecideNow(request) }),
    POST: async (request) => serializeRow(db, request.ctx, serviceRequests, await approve(services, request, request.object.id)),
    OPTIONS: async () => actionOptions('Service Request Approve', 'GET: whether you may approve the request. POST: approves the pending request and launches it.', {
      GET: { can_approve: boolean({ readOnly: true }) },
      POST: {},
    }),
  }, decisionSchemas(serviceRequests, 'approve'));

  routeMethods<ServiceRequestRow>(app, `${base}:id/reject/`, objectPermission('service_request', { POST: 'decide' }), {
    GET: async (request) => ({ can_reject: await mayDecideNow(request) }),
    POST: async (request) => {
      const { reason } = validBody(request, RejectBody);
      return serializeRow(db, request.ctx, serviceRequests, await reject(services, request, request.object.id, reason ?? ''));
    },
    OPTIONS: async () => actionOptions('Service Request Reject', 'GET: whether you may reject the request. POST {reason}: rejects the pending request.', {
      GET: { can_reject: boolean({ readOnly: true }) },
      POST: { reason: text({ maxLength: 4096, helpText: 'Why the request is rejected.' }) },
    }),
  }, decisionSchemas(serviceRequests, 'reject'));
};
