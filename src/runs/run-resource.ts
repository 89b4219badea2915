import { hasObjectRoleOnRow, isSuperuser, objectsWithRole, seesEverything, type Capability, type ObjectAction } from '../api/access.ts';
import type { RequestContext } from '../api/context.ts';
import { ApiError, forbidden } from '../api/errors.ts';
import type { Field } from '../api/fields.ts';
import { defineResource, type Resource, type SerializedObject, type Values } from '../api/resource.ts';
import type { Params } from '../api/sql.ts';
import { launchOrRefuse, type Launcher } from './launch.ts';
import { reverse, type Relation } from '../api/relations.ts';
import { readTogether, type Queryable, type Row } from '../db/database.ts';
import type { UnifiedJobRow } from '../db/tables.ts';
import { registerRunRoutes } from './run-routes.ts';
import { isActiveStatus } from './lifecycle.ts';
import { runFields, runLinks, showSchedule } from './run-fields.ts';
import { playbookOutcome } from './playbook-counts.ts';
import type { RunRouteModule } from './run-services.ts';
import { runServicesOf } from './run-services.ts';

/** A run's columns naming the object it belongs to or was made from (all integer ids). */
type RunLinkColumn =
  | 'job_template_id' | 'project_id' | 'inventory_id' | 'inventory_source_id'
  | 'workflow_job_template_id' | 'workflow_approval_template_id' | 'unified_job_template_id';

const isActive = isActiveStatus;

export interface RunResourceDeclaration {
  /** The run kind (project_update): its type, URL segment (+s) and the view of unified_jobs it reads. */
  name: string;
  label: string;
  /** What AWX calls the kind in the choices of `type` (Playbook Run); the label without " List" unless said. */
  typeLabel?: string;
  description: string;
  /** Fields of this kind beyond those every run has. */
  fields: Record<string, Field>;
  /** The object the run belongs to, whose roles decide: its content type and the run's column naming it. */
  owner: { contentType: string; column: RunLinkColumn };
  /** Refuses the kind's whole list to some callers (see AccessPolicy.listRefusal). */
  listRefusal?(ctx: RequestContext): string | null;
  /** Role on the owner that may cancel a run (its creator always may). Deleting a finished run needs admin_role. */
  cancelRole: string;
  /** The template the run was made from: its list (projects) and the run's column naming it. */
  template: { plural: string; column: RunLinkColumn };
  /** Where its events are listed (AWX: events/ for updates, job_events/ for jobs). */
  eventsPath?: string;
  /** Runs of a playbook (jobs, project updates): their page shows host_status_counts and playbook_counts. */
  playbookCounts?: boolean;
  related?: Record<string, Relation>;
  /** Adds what this kind shows beyond the common links (after them), with what `prepare` loaded for the page. */
  decorate?(row: UnifiedJobRow, out: SerializedObject, prepared?: unknown): void;
  prepare?(db: Queryable, rows: readonly UnifiedJobRow[], ctx: RequestContext): Promise<unknown>;
  /** Adds what only the run's own page shows of this kind (see ResourceDeclaration.detail). */
  detail?(db: Queryable, row: UnifiedJobRow, out: Row): Promise<void>;
  /** What else may be done with a run of this kind, by name (beyond view and cancel: see route-objects.ts). */
  actions?: Record<string, ObjectAction<UnifiedJobRow>>;
  /** For kinds started by POST on their own list (ad hoc commands): who may, and the launcher the POST goes through. */
  createdThroughList?: {
    canCreate: Resource['access']['canCreate'];
    launcher: Launcher<Values>;
  };
}

/**
 * A run kind as a resource: read-only fields, visible to readers of its owner, deletable once
 * finished by the owner's admins, with stdout/, events/ and cancel/ (AWX's UnifiedJob views).
 */
export interface RunResource extends Resource {
  /** stdout/, events/ and cancel/ of this kind. */
  runRoutes: RunRouteModule;
  /** Where its events are listed, after a run's own path (events, job_events). */
  eventsPath: string;
}

/**
 * user_capabilities.start of a run, as AWX: whether the caller may relaunch it (a kind's `relaunch`
 * action, whose refusal is an answer here), else the owner's update_role (project and inventory updates).
 */
function startCapability(decl: RunResourceDeclaration): Capability<UnifiedJobRow> {
  const relaunch = decl.actions?.relaunch;
  if (!relaunch) return (ctx, tx, row, page) => hasObjectRoleOnRow(ctx, tx, decl.owner.contentType, 'update_role', row, page, decl.owner.column);
  return async (ctx, tx, row) => {
    try {
      return await relaunch(ctx, tx, row);
    } catch (err) {
      if (err instanceof ApiError) return false;
      throw err;
    }
  };
}

/**
 * Whom a run is readable by, besides those who see everything (then null): readers of its owner
 * (`owners`, the owner ids as a subquery) and those it was shown to (`shown`, run ids:
 * run_viewers, a catalog request's requester).
 */
export function runReaders(ctx: RequestContext, params: Params, ownerType: string): { owners: string; shown: string } | null {
  if (seesEverything(ctx)) return null;
  const user = params.add(ctx.user?.id ?? 0);
  return { owners: objectsWithRole(ownerType, ['read_role'], user), shown: `SELECT unified_job_id FROM run_viewers WHERE user_id = ${user}` };
}

export function defineRunResource(decl: RunResourceDeclaration): RunResource {
  const { contentType, column } = decl.owner;
  const resource = defineResource<UnifiedJobRow>({
    name: decl.name,
    table: `${decl.name}s`,
    label: decl.label,
    typeLabel: decl.typeLabel,
    description: decl.description,
    operations: { create: Boolean(decl.createdThroughList), update: false },
    ordering: '-id',
    search: ['name', 'description'],
    fields: { ...runFields(), ...decl.fields },
    links: runLinks(),
    summaryColumns: ['id', 'name', 'description', 'status', 'failed'],
    // Every kind lists the notifications sent about its runs (AWX's /jobs/{id}/notifications/...).
    related: { ...decl.related, notifications: reverse('notification', 'notifications', 'unified_job_id') },
    access: {
      // Readers of the owner, and those a run was shown to (run_viewers: a catalog request's requester).
      visible: (ctx, alias, params) => {
        const readers = runReaders(ctx, params, contentType);
        return readers && `(${alias}.${column} IN (${readers.owners}) OR ${alias}.id IN (${readers.shown}))`;
      },
      listRefusal: decl.listRefusal,
      canCreate: decl.createdThroughList?.canCreate ?? (() => false),
      canChange: () => false,
      canDelete: async (ctx, tx, row, page) => !isActive(row.status) && hasObjectRoleOnRow(ctx, tx, contentType, 'admin_role', row, page, column),
      canAttach: () => false,
      actions: {
        cancel: (ctx, tx, run) => isSuperuser(ctx) || run.created_by_id === ctx.user?.id || hasObjectRoleOnRow(ctx, tx, contentType, decl.cancelRole, run, undefined, column),
        ...decl.actions,
      },
      capabilities: { start: startCapability(decl) },
    },
    ...(decl.createdThroughList && { create: async (services, ctx, values) => (await launchOrRefuse(runServicesOf(services).launches, ctx, decl.createdThroughList!.launcher, null, values)).run }),
    hooks: {
      beforeDelete: (_tx, _ctx, row) => {
        if (isActive(row.status)) throw forbidden(`Cannot delete a running ${decl.label.replace(/ List$/, '').toLowerCase()}.`);
      },
    },
    prepare: decl.prepare,
    detail: async (db, row, out) => {
      Object.assign(out, { job_args: row.job_args, job_cwd: row.job_cwd, job_env: row.job_env ?? {} });
      const [, outcome] = await readTogether(db, [
        async () => decl.detail?.(db, row, out),
        async () => (decl.playbookCounts ? playbookOutcome(db, row.id) : undefined),
      ] as const);
      if (!outcome) return;
      // Until the run's stats are in, AWX shows null; a run whose events are all stored without stats, {}.
      out.host_status_counts = outcome.host_status_counts ?? (row.event_processing_finished && !isActive(row.status) ? {} : null);
      out.playbook_counts = outcome.playbook_counts;
    },
    decorate: (row, out, prepared) => {
      const base = `/api/v2/${decl.name}s/${row.id}/`;
      const templateId = row[decl.template.column];
      out.related = {
        ...(out.related as object),
        stdout: `${base}stdout/`,
        [decl.eventsPath ?? 'events']: `${base}${decl.eventsPath ?? 'events'}/`,
        cancel: `${base}cancel/`,
        ...(templateId && { unified_job_template: `/api/v2/${decl.template.plural}/${templateId}/` }),
      };
      out.unified_job_template = templateId ?? null;
      showSchedule(out);
      const creator = (out.summary_fields as Record<string, any>).created_by;
      out.launched_by = creator ? { id: creator.id, name: creator.username, type: 'user', url: `/api/v2/users/${creator.id}/` } : {};
      Object.assign(out, { canceled_on: null, work_unit_id: null, custom_virtualenv: null });
      decl.decorate?.(row, out, prepared);
    },
  });
  const runRoutes: RunRouteModule = (app, services) => registerRunRoutes(app, services, resource, { eventsPath: decl.eventsPath });
  return Object.assign(resource, { runRoutes, eventsPath: decl.eventsPath ?? 'events' });
}
