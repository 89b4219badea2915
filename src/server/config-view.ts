import { readdir } from 'node:fs/promises';
import { objectsWithRole, seesEverything } from '../api/access.ts';
import type { RequestContext, Services } from '../api/context.ts';
import { CHECKOUT_NAME } from '../resources/projects/project-hooks.ts';
import { PRODUCT_NAME, VERSION } from '../version.ts';
import { nodeSandbox } from '../runtime/sandbox.ts';
import { runIsolation, type RunIsolation } from '../runtime/run-isolation.ts';

/** Whether this node isolates runs; why not only in the instance's errors (it names paths). */
const isolationView = ({ enabled, available, isolates_runs }: RunIsolation) => ({ enabled, available, isolates_runs });

const BECOME_METHODS = [
  ['sudo', 'Sudo'], ['su', 'Su'], ['pbrun', 'Pbrun'], ['pfexec', 'Pfexec'], ['dzdo', 'DZDO'], ['pmrun', 'Pmrun'], ['runas', 'Runas'],
  ['enable', 'Enable'], ['doas', 'Doas'], ['ksu', 'Ksu'], ['machinectl', 'Machinectl'], ['sesu', 'Sesu'],
];
const ANALYTICS_STATES = ['off', 'anonymous', 'detailed'];

/**
 * Directories of the projects root a manual project may use, as AWX lists them: neither hidden
 * nor a source control checkout (_<id>__<name>), and not used by a project yet.
 */
async function localPathChoices(services: Services): Promise<string[]> {
  const entries = await readdir(services.env.projectsRoot, { withFileTypes: true }).catch(() => []);
  const candidates = entries.filter((e) => e.isDirectory() && !e.name.startsWith('.') && !CHECKOUT_NAME.test(e.name)).map((e) => e.name);
  if (!candidates.length) return [];
  const used = await services.db.query<{ local_path: string }>('SELECT local_path FROM projects WHERE local_path = ANY($1)', [candidates]);
  const taken = new Set(used.map((r) => r.local_path));
  return candidates.filter((name) => !taken.has(name)).sort();
}

/** AWX gives the virtual environments to whoever administers or audits an organization, its projects or a job template. */
async function seesVirtualenvs(services: Services, ctx: RequestContext): Promise<boolean> {
  if (seesEverything(ctx)) return true;
  const [row] = await services.db.query<{ yes: boolean }>(
    `SELECT EXISTS (${objectsWithRole('organization', ['admin_role', 'auditor_role', 'project_admin_role'], '$1')})
         OR EXISTS (${objectsWithRole('job_template', ['admin_role'], '$1')}) AS yes`,
    [ctx.user!.id],
  );
  return row.yes === true;
}

/** GET /api/v2/config/, as AWX's ApiV2ConfigView answers each caller. */
export async function configFor(services: Services, ctx: RequestContext): Promise<Record<string, unknown>> {
  const { settings, env } = services;
  const analytics = settings.get<string>('PENDO_TRACKING_STATE');
  const uiNext = settings.get<unknown>('UI_NEXT');
  const config: Record<string, unknown> = {
    time_zone: Intl.DateTimeFormat().resolvedOptions().timeZone,
    license_info: { license_type: 'open', valid_key: true, subscription_name: 'OPEN', product_name: PRODUCT_NAME },
    version: VERSION,
    eula: '',
    analytics_status: ANALYTICS_STATES.includes(analytics) ? analytics : 'off',
    analytics_collectors: {},
    become_methods: BECOME_METHODS,
    ui_next: uiNext === true || uiNext === false ? uiNext : false,
    node_name: env.nodeName,
    node_type: env.nodeType,
    run_isolation: isolationView(runIsolation(settings, await nodeSandbox())),
  };
  // Paths on the controller only for superusers, stricter than AWX (which shows them to anyone
  // who administers or audits an organization): the layout of the controller's disk helps an
  // attacker more than it helps a user of the API.
  if (ctx.user?.isSuperuser) {
    config.project_base_dir = env.projectsRoot;
    config.project_local_paths = await localPathChoices(services);
    config.database_kind = services.db.kind;
  }
  // Drover runs no custom virtual environments: the list is empty, given to those AWX gives it to.
  if (await seesVirtualenvs(services, ctx)) config.custom_virtualenvs = [];
  return config;
}
