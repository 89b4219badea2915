/**
 * The scheduler: launches each due schedule once, whichever nodes run it. A node claims a due
 * schedule by moving its next_run from the value it read to the next slot in one conditional
 * UPDATE; only the node whose UPDATE matched launches. The next slot is the first after now, so
 * slots missed while no node ran collapse into the one launch. It sleeps until the earliest
 * next_run and is woken early when schedules change (NOTIFY drover_schedules).
 */
import { systemContextIn, type ResourceSet } from '../api/context.ts';
import type { RunServices, StoredSchedule } from '../runs/run-services.ts';
import { ApiError } from '../api/errors.ts';
import { recordActivity } from '../activity/record.ts';
import type { Queryable, ResourceRow } from '../db/database.ts';
import type { ScheduleRow } from '../db/tables.ts';
import type { ServiceLogger } from '../api/logger.ts';
import type { ScheduledLaunch } from '../resources/schedules/schedulable.ts';
import { computeSchedule, nextOccurrence, UnusableRule } from '../resources/schedules/rrule-schedule.ts';
import { parseRrule } from '../resources/schedules/rrule-text.ts';
import type { Launcher } from '../runs/launch.ts';
import { ACTIVE_STATUSES } from '../runs/lifecycle.ts';

export const SCHEDULES_CHANNEL = 'drover_schedules';
/** The longest sleep: a safety net for clock changes, not the way schedules are found. */
const MAX_SLEEP_MS = 60_000;
const BATCH = 500;

/** Marks a launch refused because its template has SCHEDULE_MAX_JOBS active runs. */
class TooManyRuns extends ApiError {
  constructor(readonly active: number, readonly max: number) {
    super(409, { detail: `Not launched: the template has ${active} active runs (SCHEDULE_MAX_JOBS is ${max}).` });
  }
}

/** The kind's launcher, refusing when the template has SCHEDULE_MAX_JOBS active runs (counted under the template's lock) and recording the schedule on the run. */
function scheduledLauncher(launcher: Launcher<ScheduledLaunch>, templateTable: string, max: number): Launcher<ScheduledLaunch> {
  return {
    kind: launcher.kind,
    async plan(tx, ctx, template, input) {
      await tx.query(`SELECT 1 FROM ${templateTable} WHERE id = $1 FOR UPDATE`, [template!.id]);
      const [{ active }] = await tx.query<{ active: number }>(
        'SELECT count(*)::int AS active FROM unified_jobs WHERE unified_job_template_id = $1 AND status = ANY($2::text[])',
        [template!.id, [...ACTIVE_STATUSES]],
      );
      if (active >= max) throw new TooManyRuns(active, max);
      const plan = await launcher.plan(tx, ctx, template, input);
      return { ...plan, values: { ...plan.values, schedule_id: input.schedule.id } };
    },
  };
}

type Links = Map<number, { credentialIds: number[]; labelIds: number[]; instanceGroupIds: number[] }>;

/** The saved credentials and labels of claimed schedules, in one query. */
async function savedLinks(db: Queryable, scheduleIds: number[]): Promise<Links> {
  const links: Links = new Map(scheduleIds.map((id) => [id, { credentialIds: [], labelIds: [], instanceGroupIds: [] }]));
  const rows = await db.query<{ schedule_id: number; link: string; id: number }>(
    `SELECT schedule_id, 'credential' AS link, credential_id AS id, credential_id AS place FROM schedule_credentials WHERE schedule_id = ANY($1::int[])
     UNION ALL SELECT schedule_id, 'label', label_id, label_id FROM schedule_labels WHERE schedule_id = ANY($1::int[])
     UNION ALL SELECT schedule_id, 'instance_group', instance_group_id, position FROM schedule_instance_groups WHERE schedule_id = ANY($1::int[])
     ORDER BY 1, 2, 4`,
    [scheduleIds],
  );
  const lists = { credential: 'credentialIds', label: 'labelIds', instance_group: 'instanceGroupIds' } as const;
  for (const row of rows) links.get(row.schedule_id)![lists[row.link as keyof typeof lists]].push(row.id);
  return links;
}

/** The templates of claimed schedules with their kinds: one query for the kinds, one per kind. */
async function templatesOf(db: Queryable, resources: ResourceSet, ids: number[]): Promise<Map<number, { kind: string; row: ResourceRow }>> {
  const found = new Map<number, { kind: string; row: ResourceRow }>();
  const kinds = await db.query<{ id: number; kind: string }>('SELECT id, kind FROM unified_job_templates WHERE id = ANY($1::int[])', [ids]);
  for (const kind of new Set(kinds.map((k) => k.kind))) {
    const table = resources.get(kind).table;
    for (const row of await db.query<ResourceRow>(`SELECT * FROM ${table} WHERE id = ANY($1::int[])`, [kinds.filter((k) => k.kind === kind).map((k) => k.id)])) {
      found.set(row.id, { kind, row });
    }
  }
  return found;
}

/**
 * Claims due schedules in one statement: each moves from the next_run this node read to its next
 * slot after now (null when the rule has ended); those another node moved first are not returned.
 */
async function claim(db: Queryable, due: StoredSchedule[], now: Date, logger: ServiceLogger): Promise<StoredSchedule[]> {
  const next = due.map((row) => {
    const parsed = parseRrule(row.rrule);
    if (!('rrule' in parsed)) return null;
    try {
      return nextOccurrence(parsed.rrule, now, now);
    } catch (err) {
      if (!(err instanceof UnusableRule)) throw err;
      logger.warn(`schedule ${row.id} (${row.name}) has no next run: ${err.message}`);
      return null;
    }
  });
  return db.query<StoredSchedule>(
    `UPDATE schedules s SET next_run = c.next
     FROM unnest($1::int[], $2::timestamptz[], $3::timestamptz[]) AS c(id, seen, next)
     WHERE s.id = c.id AND date_trunc('milliseconds', s.next_run) = date_trunc('milliseconds', c.seen) AND s.enabled RETURNING s.*`,
    [due.map((r) => r.id), due.map((r) => r.next_run), next],
  );
}

/** Launches one claimed schedule as the system, as AWX's scheduler does; a refusal is logged and recorded. */
async function launchSchedule(services: RunServices, schedule: StoredSchedule, template: { kind: string; row: ResourceRow } | undefined, links: Links): Promise<void> {
  const kind = template && services.scheduleKinds.get(template.kind);
  if (!template || !kind) return;
  const ctx = systemContextIn(services);
  const max = services.settings.get<number>('SCHEDULE_MAX_JOBS');
  const launcher = scheduledLauncher(kind.launcher, kind.launcher.kind.templateTable ?? `${template.kind}s`, max);
  const launched = await services.launches.launch(ctx, launcher, template.row, { schedule, ...links.get(schedule.id)! });
  if (launched.ok) return;
  const { detail, reasons } = launched.refusal.body;
  // A gate's reasons (quotas exceeded, policies denying) say why; the detail alone does not.
  const reason = [String(detail ?? JSON.stringify(launched.refusal.body)), ...(Array.isArray(reasons) ? reasons.map(String) : [])].join(' ');
  services.logger.warn(`schedule ${schedule.id} (${schedule.name}) of template ${template.row.id}: ${reason}`);
  await recordActivity(services.db, ctx, { operation: 'update', object1: 'schedule', object1Id: schedule.id, changes: { skipped_launch: reason } });
}

/** Launches every schedule due now; answers how many were due. */
export async function launchDueSchedules(services: RunServices, now = new Date()): Promise<number> {
  const { db } = services;
  const due = await db.query<StoredSchedule>('SELECT * FROM schedules WHERE enabled AND next_run <= $1 ORDER BY next_run, id LIMIT $2', [now, BATCH]);
  if (!due.length) return 0;
  const claimed = await claim(db, due, now, services.logger);
  if (!claimed.length) return due.length;
  const templates = await templatesOf(db, services.resources, [...new Set(claimed.map((s) => s.unified_job_template_id))]);
  const links = await savedLinks(db, claimed.map((s) => s.id));
  const lanes = db.kind === 'server' ? 8 : 1;
  let index = 0;
  const lane = async () => {
    while (index < claimed.length) {
      const schedule = claimed[index++];
      await launchSchedule(services, schedule, templates.get(schedule.unified_job_template_id), links)
        .catch((err) => services.logger.error(`schedule ${schedule.id} failed to launch:`, err instanceof Error ? err.message : err));
    }
  };
  await Promise.all(Array.from({ length: lanes }, lane));
  return due.length;
}

/**
 * Computes dtstart, dtend and next_run of schedules stored without them (those the migration
 * installs, and those saved before rules were expanded with a budget whose expansion found
 * nothing). Each computation is bounded (RRULE_STEP_BUDGET) and the loop yields between
 * schedules, so this runs beside requests, never before them; a rule that is unusable today keeps
 * no next_run and is reported.
 */
export async function refreshUncomputedSchedules(db: Queryable, logger: ServiceLogger, stopped: () => boolean = () => false): Promise<number> {
  let computed = 0;
  for (const row of await db.query<Pick<ScheduleRow, 'id' | 'name' | 'rrule' | 'enabled'>>('SELECT id, name, rrule, enabled FROM schedules WHERE dtstart IS NULL AND next_run IS NULL AND enabled ORDER BY id')) {
    if (stopped()) break;
    await new Promise((resolve) => setImmediate(resolve));
    const parsed = parseRrule(row.rrule);
    if (!('rrule' in parsed)) continue;
    try {
      const fields = computeSchedule(parsed.rrule, row.enabled);
      await db.query('UPDATE schedules SET dtstart = $2, dtend = $3, next_run = $4 WHERE id = $1', [row.id, fields.dtstart, fields.dtend, fields.next_run]);
      computed++;
    } catch (err) {
      if (!(err instanceof UnusableRule)) throw err;
      logger.warn(`schedule ${row.id} (${row.name}) will not run: ${err.message}`);
    }
  }
  return computed;
}

export interface RunningScheduler {
  /** Wakes the scheduler and resolves once a pass begun after the call has ended (tests). */
  settle(): Promise<void>;
  stop(): Promise<void>;
}

/** Starts this node's scheduler: a pass now, then one at each earliest next_run or schedule change. */
export async function startScheduler(services: RunServices): Promise<RunningScheduler> {
  const { db } = services;
  let timer: NodeJS.Timeout | null = null;
  let running = false;
  let again = false;
  let stopped = false;
  let passDone: Promise<void> = Promise.resolve();

  const arm = async () => {
    if (stopped) return;
    const [{ next }] = await db.query<{ next: Date | null }>('SELECT min(next_run) AS next FROM schedules WHERE enabled AND next_run IS NOT NULL');
    if (timer) clearTimeout(timer);
    const wait = next ? Math.min(Math.max(new Date(next).getTime() - Date.now(), 0), MAX_SLEEP_MS) : MAX_SLEEP_MS;
    timer = setTimeout(wake, wait);
    timer.unref();
  };
  const pass = async () => {
    running = true;
    try {
      do {
        again = false;
        while ((await launchDueSchedules(services)) === BATCH && !stopped);
      } while (again && !stopped);
      await arm();
    } catch (err) {
      services.logger.error('scheduler pass failed:', err instanceof Error ? err.message : err);
      if (!stopped) timer = setTimeout(wake, 1_000);
    } finally {
      running = false;
    }
  };
  function wake() {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    passDone = pass();
  }

  const unlisten = await db.listen(SCHEDULES_CHANNEL, () => wake());
  wake();
  // Off the start path: the schedules it computes are armed by a pass when it ends.
  const refreshed = refreshUncomputedSchedules(db, services.logger, () => stopped)
    .then((computed) => computed && wake())
    .catch((err) => services.logger.error('computing stored schedules failed:', err instanceof Error ? err.message : err));
  return {
    async settle() {
      wake();
      while (running) await passDone;
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await refreshed;
      await unlisten().catch(() => undefined);
      await passDone;
    },
  };
}
