import type { FastifyInstance } from 'fastify';
import { ApiError } from '../api/errors.ts';
import { listPage, type Query } from '../api/list.ts';
import { listOptions, viewOptions } from '../api/options.ts';
import { type Resource } from '../api/resource.ts';
import { routeMethods } from '../api/resource-routes.ts';
import { allows } from '../api/route-objects.ts';
import { actionRouteSchemas, NO_CONTENT } from '../api/action-schemas.ts';
import { recordActivity } from '../activity/record.ts';
import { objectPermission } from '../api/permissions.ts';
import { sendStdout } from './stdout.ts';
import { presentEvents } from './run-events.ts';
import { eventWithRun } from './event-access.ts';
import { jobChildrenSummary } from './children-summary.ts';
import { isActiveStatus, CANCEL_CHANNEL, finishRun } from './lifecycle.ts';
import type { UnifiedJobEventRow, UnifiedJobRow } from '../db/tables.ts';
import type { RunServices } from './run-services.ts';

const noTruncate = (query: Query) => query.no_truncate !== undefined && query.no_truncate !== 'false';

const isActive = isActiveStatus;

/**
 * The endpoints every run kind shares: its output (stdout/), its events (events/ or job_events/)
 * and cancel/ (GET can_cancel, POST 202).
 */
export function registerRunRoutes(app: FastifyInstance, services: RunServices, run: Resource, options: { eventsPath?: string }) {
  const { db } = services;
  const stdoutLimit = () => services.settings.get<number>('EVENT_STDOUT_MAX_BYTES_DISPLAY');
  const events = services.resources.get('unified_job_event');
  const base = `${run.listPath}:id/`;
  const label = run.label.replace(/ List$/, '');
  routeMethods<UnifiedJobRow>(app, `${base}stdout/`, objectPermission(run.name), {
    GET: async (request, reply) => {
      const maxBytes = services.settings.get('STDOUT_MAX_BYTES_DISPLAY');
      return sendStdout(db, reply, request.object, request.query as Record<string, unknown>, maxBytes);
    },
    OPTIONS: async () => viewOptions(`${label} Stdout`, 'The output of the run: ?format=json|txt|ansi|html|txt_download|ansi_download, start_line, end_line.'),
  });
  const eventsPath = options.eventsPath ?? 'events';
  const shape = services.runKinds.events(run.name);
  routeMethods<UnifiedJobRow>(app, `${base}${eventsPath}/`, objectPermission(run.name), {
    GET: async (request) => {
      const row = request.object;
      const query = request.query as Query;
      const page = await listPage(db, request.ctx, events, request.url.split('?')[0], query, (alias, params) => `${alias}.unified_job_id = ${params.add(row.id)}`);
      return { ...page, results: await presentEvents(db, shape, row, page.results, { full: noTruncate(query), limit: stdoutLimit() }) };
    },
    OPTIONS: async () => listOptions(services.resources, events, false, `${label} Event List`),
  });
  if (shape.children) {
    routeMethods<UnifiedJobRow>(app, `${base}${eventsPath}/children_summary/`, objectPermission(run.name), {
      GET: async (request) => jobChildrenSummary(db, request.object),
      OPTIONS: async () => viewOptions('Job Job Events Children Summary', 'Per event with descendants: its row and how many descendants it has; the parent of each meta event; whether the events form a tree.'),
    });
  }
  const { detailPath } = shape;
  if (detailPath) {
    routeMethods<UnifiedJobEventRow>(app, `${detailPath}:id/`, objectPermission(`${run.name}_event`), {
      GET: async (request) => {
        const { event, run: owner } = await eventWithRun(db, request.ctx, request.object);
        return (await presentEvents(db, shape, owner, [event], { full: true, limit: stdoutLimit() }))[0];
      },
      OPTIONS: async () => viewOptions(`${label} Event Detail`, 'One event of a run, with its whole stdout.'),
    });
  }
  if (detailPath && shape.children) {
    routeMethods<UnifiedJobEventRow>(app, `${detailPath}:id/children/`, objectPermission(`${run.name}_event`), {
      GET: async (request) => {
        const { event, run: owner } = await eventWithRun(db, request.ctx, request.object);
        const query = request.query as Query;
        const page = await listPage(db, request.ctx, events, request.url.split('?')[0], query, (alias, params) =>
          `${alias}.unified_job_id = ${params.add(owner.id)} AND ${alias}.parent_uuid = ${params.add(event.uuid)} AND ${alias}.parent_uuid <> ''`);
        return { ...page, results: await presentEvents(db, shape, owner, page.results, { full: noTruncate(query), limit: stdoutLimit() }) };
      },
      OPTIONS: async () => listOptions(services.resources, events, false, 'Job Event Children List'),
    });
  }
  routeMethods<UnifiedJobRow>(app, `${base}cancel/`, objectPermission(run.name, { POST: 'cancel' }), {
    GET: async (request) => {
      const row = request.object;
      return { can_cancel: isActive(row.status) && (await allows(run, 'cancel', request.ctx, db, row)) };
    },
    POST: async (request, reply) => {
      const row = request.object;
      if (!isActive(row.status)) {
        reply.header('Allow', 'GET, HEAD, OPTIONS');
        throw new ApiError(405, { detail: `Cannot cancel a ${run.label.replace(/ List$/, '').toLowerCase()} that is ${row.status}.` });
      }
      await db.transaction(async (tx) => {
        const [locked] = await tx.query<UnifiedJobRow>('SELECT * FROM unified_jobs WHERE id = $1 FOR UPDATE', [row.id]);
        if (locked.status === 'new' || locked.status === 'pending') {
          await finishRun(tx, services.runKinds, locked, { status: 'canceled', explanation: 'The run was canceled before it started.' });
        } else {
          await tx.query('UPDATE unified_jobs SET cancel_flag = true, modified = now() WHERE id = $1', [row.id]);
          await tx.query('SELECT pg_notify($1, $2)', [CANCEL_CHANNEL, String(row.id)]);
        }
        await recordActivity(tx, request.ctx, { operation: 'update', object1: run.name, object1Id: row.id, changes: { cancel_flag: [false, true] } });
      });
      return reply.code(202).send();
    },
    OPTIONS: async () => viewOptions(`${label} Cancel`, 'GET: whether the run can be canceled. POST: cancels it.'),
  }, actionRouteSchemas('can_cancel', 'Cancel the run', 202, NO_CONTENT));
}
