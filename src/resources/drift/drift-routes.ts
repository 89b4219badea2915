/**
 * Drift endpoints beyond the lists (docs/drift.md#endpoints): acknowledge, compare,
 * export, summary, and enable/disable of alert rules.
 */
import { Type } from 'typebox';
import { recordActivity } from '../../activity/record.ts';
import { OPTIONS_RESPONSE } from '../../api/action-schemas.ts';
import { validBody } from '../../api/route-schemas.ts';
import { csvText } from '../../api/csv.ts';
import { badRequest, notFound } from '../../api/errors.ts';
import type { RouteModule } from '../../api/extra-routes.ts';
import { isVisible, listAll, visibleFrom, type Query } from '../../api/list.ts';
import { actionOptions, viewOptions } from '../../api/options.ts';
import { AUTHENTICATED, objectPermission } from '../../api/permissions.ts';
import { routeMethods } from '../../api/resource-routes.ts';
import { serializeRow } from '../../api/serialize.ts';
import { enableDisableRoutes } from '../../api/toggle-routes.ts';
import { CATEGORIES, SEVERITIES } from '../../drift/categories.ts';
import { diffFacts } from '../../drift/fact-diff.ts';
import type { DriftDetectionRow } from '../../db/tables.ts';
import { driftAlertRules } from './drift-alert-rule.resource.ts';
import { driftDetections } from './drift-detection.resource.ts';
import { factSnapshots } from './fact-snapshot.resource.ts';

const EXPORT_COLUMNS = ['ID', 'Host', 'Detected At', 'Category', 'Severity', 'Fact Path', 'Summary', 'Diff Type', 'Acknowledged'];
const EXPORT_MAX_ROWS = 100_000;

/** A YYYY-MM-DD query value as the start of that day (UTC), or a 400 naming the parameter. */
function dayOf(query: Query, name: string): Date | null {
  const value = query[name];
  if (value === undefined || value === '') return null;
  const text = String(value);
  const day = /^\d{4}-\d{2}-\d{2}$/.test(text) ? new Date(`${text}T00:00:00Z`) : null;
  if (!day || Number.isNaN(day.getTime()) || day.toISOString().slice(0, 10) !== text) throw badRequest(`${name} must be a date as YYYY-MM-DD, not "${text}".`);
  return day;
}

/** The summary's period: ?days= (1 or more) counts the last days only; without it, all drift counts (null). */
function summaryDays(query: Query): number | null {
  if (query.days === undefined || query.days === '') return null;
  const text = String(query.days);
  if (!/^\d{1,5}$/.test(text) || Number(text) < 1) throw badRequest(`days must be a whole number of days (1 or more), not "${text}".`);
  return Number(text);
}

function without(query: Query, ...names: string[]): Query {
  const rest = { ...query };
  for (const name of names) delete rest[name];
  return rest;
}

/** A fact snapshot's id, as a reference field reads it (an integer, or its digits as a string). */
const SnapshotId = (which: string) =>
  Type.Union([Type.Integer({ minimum: 1, maximum: 2_147_483_647 }), Type.String({ pattern: '^0*[1-9][0-9]{0,8}$' })], {
    errorMessage: 'Incorrect type. Expected pk value, received {type}.',
    description: `The ${which} fact snapshot.`,
  });

/** POST compare/: the two snapshots, from snapshot_a to snapshot_b. */
const CompareBody = Type.Object({ snapshot_a: SnapshotId('first'), snapshot_b: SnapshotId('second') }, { additionalProperties: true });

/** A snapshot id of the body, read as every reference field is. */

export const driftRoutes: RouteModule = (app, services) => {
  const { db } = services;

  routeMethods<DriftDetectionRow>(app, '/api/v2/drift_detections/:id/acknowledge/', objectPermission('drift_detection', { POST: 'acknowledge' }), {
    GET: async () => ({}),
    POST: async (request) => {
      const row = await db.transaction(async (tx) => {
        const [updated] = await tx.query<DriftDetectionRow>(
          `UPDATE drift_detections SET acknowledged = true, acknowledged_by_id = $2, acknowledged_at = now(), modified_by_id = $2 WHERE id = $1 AND NOT acknowledged RETURNING *`,
          [request.object.id, request.ctx.user!.id],
        );
        if (!updated) return request.object;
        await recordActivity(tx, request.ctx, { operation: 'update', object1: 'drift_detection', object1Id: updated.id, changes: { acknowledged: [false, true] } });
        return updated;
      });
      return serializeRow(db, request.ctx, driftDetections, row);
    },
    OPTIONS: async () => actionOptions('Drift Detection Acknowledge', 'POST (no body): marks the drift as reviewed; alert rules no longer count it.', { GET: {}, POST: {} }),
  }, { GET: { summary: 'What acknowledging a drift detection takes' }, POST: { summary: 'Acknowledge a drift detection' }, OPTIONS: OPTIONS_RESPONSE });

  routeMethods(app, '/api/v2/drift_detections/compare/', AUTHENTICATED, {
    GET: async () => ({ snapshot_a: null, snapshot_b: null }),
    POST: async (request) => {
      const body = validBody(request, CompareBody);
      const ids = [Number(body.snapshot_a), Number(body.snapshot_b)];
      const snapshots = [];
      for (const id of ids) {
        const [row] = await db.query<{ id: number; facts: Record<string, unknown> }>('SELECT id, facts FROM host_fact_snapshots WHERE id = $1', [id]);
        // One the caller may not see is not found either: its existence is not told.
        if (!row || !(await isVisible(db, request.ctx, factSnapshots, id))) throw notFound(`Fact snapshot ${id} not found.`);
        snapshots.push(row);
      }
      const diffs = diffFacts(snapshots[0].facts, snapshots[1].facts).map(({ fact_path, category, severity, summary, detail }) => ({ fact_path, category, severity, summary, detail }));
      return { snapshot_a: ids[0], snapshot_b: ids[1], diff_count: diffs.length, diffs };
    },
    OPTIONS: async () => actionOptions('Drift Compare', 'POST {snapshot_a, snapshot_b}: the changes of every top-level fact from snapshot_a to snapshot_b.', { GET: {}, POST: {} }),
  }, {
    GET: { summary: 'What comparing two fact snapshots takes' },
    POST: { summary: 'Compare two fact snapshots', body: CompareBody, checkBody: true },
    OPTIONS: OPTIONS_RESPONSE,
  });

  routeMethods(app, '/api/v2/drift_detections/export/', AUTHENTICATED, {
    GET: async (request, reply) => {
      const query = request.query as Query;
      const from = dayOf(query, 'date_from');
      const to = dayOf(query, 'date_to');
      // listAll answers rows of the resource's own table.
      const rows = (await listAll(db, request.ctx, driftDetections, without(query, 'date_from', 'date_to', 'format'), EXPORT_MAX_ROWS, (alias, params) => {
        const conditions = ['true'];
        if (from) conditions.push(`${alias}.created >= ${params.add(from.toISOString())}::timestamptz`);
        // date_to names the last day included.
        if (to) conditions.push(`${alias}.created < ${params.add(to.toISOString())}::timestamptz + interval '1 day'`);
        return conditions.join(' AND ');
      })) as DriftDetectionRow[];
      const hostIds = [...new Set(rows.map((r) => r.host_id))];
      const names = new Map((await db.query<{ id: number; name: string }>('SELECT id, name FROM hosts WHERE id = ANY($1::int[])', [hostIds])).map((h) => [h.id, h.name]));
      const lines = rows.map((r) => [r.id, names.get(r.host_id) ?? '', new Date(r.created).toISOString(), r.category, r.severity, r.fact_path, r.summary, r.diff_type, r.acknowledged ? 'Yes' : 'No']);
      return reply
        .header('Content-Type', 'text/csv; charset=utf-8')
        .header('Content-Disposition', 'attachment; filename="drift_detections.csv"')
        .send(csvText([EXPORT_COLUMNS, ...lines]));
    },
    OPTIONS: async () => viewOptions('Drift Export', 'GET: the drift the caller may see as CSV; filters host, inventory, category, severity, date_from and date_to (YYYY-MM-DD, both included).'),
  }, { GET: { summary: 'Drift detections as CSV' }, OPTIONS: OPTIONS_RESPONSE });

  routeMethods(app, '/api/v2/drift_detections/summary/', AUTHENTICATED, {
    GET: async (request) => {
      const query = request.query as Query;
      const days = summaryDays(query);
      const visible = await visibleFrom(db, request.ctx, driftDetections, without(query, 'days'));
      const params = days === null ? visible.params : [...visible.params, days];
      const period = days === null ? 'true' : `d.created >= now() - make_interval(days => $${params.length}::int)`;
      const counted = `(SELECT ${visible.alias}.* ${visible.from}) AS d WHERE ${period}`;
      const [totals] = await db.query<{ total: number; unacknowledged: number; hosts: number }>(
        `SELECT count(*)::int AS total, count(*) FILTER (WHERE NOT d.acknowledged)::int AS unacknowledged, count(DISTINCT d.host_id)::int AS hosts FROM ${counted}`,
        params,
      );
      const grouped = await db.query<{ category: string; severity: string; n: number }>(`SELECT d.category, d.severity, count(*)::int AS n FROM ${counted} GROUP BY d.category, d.severity`, params);
      const byCategory = Object.fromEntries(CATEGORIES.map((c) => [c, 0]));
      const bySeverity = Object.fromEntries(SEVERITIES.map((s) => [s, 0]));
      for (const row of grouped) {
        byCategory[row.category] += row.n;
        bySeverity[row.severity] += row.n;
      }
      return { days, total: totals.total, unacknowledged: totals.unacknowledged, by_category: byCategory, by_severity: bySeverity, total_hosts_with_drift: totals.hosts };
    },
    OPTIONS: async () => viewOptions('Drift Summary', 'GET: counts of the drift the caller may see, by category and severity: all of it, or that of the last ?days= days.'),
  }, { GET: { summary: 'Counts of drift' }, OPTIONS: OPTIONS_RESPONSE });

  enableDisableRoutes(app, services, driftAlertRules);
};
