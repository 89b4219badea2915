/**
 * Import rules (npm run lint:arch). The layers, lowest first:
 *   db, config, secrets, version,           storage and configuration; Jinja sandbox and
 *   templating, net                         the guard for requests to user-supplied URLs
 *   api, rbac, activity, audit, auth, live  the resource framework and what every request uses
 *   telemetry                               traces and metrics: on config, db and api alone
 *   logging                                 the service log and log shipping
 *   policy                                  launch policy: the engine client, the gate, the upload outbox
 *   quotas                                  tenant quotas: the quota gate and the host check (run statuses from runs/lifecycle only)
 *   resources                               plain resources (declarations, access, routes)
 *   drift                                   fact snapshots, drift and its alerts (resources use only its categories and diffs)
 *   ansible, projects, inventory*           libraries runs use (ansible-runner, git, inventories)
 *   scanners                                IaC scanners: the tools in the sandbox, the scanner gate (resources use its vocabulary only)
 *   runs                                    the run lifecycle and the launch service (no HTTP in launch)
 *   eda                                     the event receiver and rule evaluation (launches through runs)
 *   run-kinds                               one folder per kind of run (workflow-job: the workflow engine and its loop)
 *   task-manager, dispatcher                placing and executing runs
 *   composition                             the composition root: lists everything
 *   server, cli, main                       processes
 * Beside them, the assistant service (assistant): a process of its own using only the storage,
 * configuration and framework layers; only the processes (server, main) start it.
 * Type-only imports do not count for the layers: they make no module depend on another at run time.
 * They do count for circles: no import circle, type-only imports included, runs through more than
 * two files (no-circle-of-three). Two files may name each other's types, only the pairs listed in
 * TWO_FILE_CIRCLES: a declaration and what it holds (a resource and its request context), kept
 * apart for size. The cruiser tells a circle but not its length, so each listed file may reach
 * around a circle only through its partner; every other file through none.
 */
const runtime = { dependencyTypesNot: ['type-only'] };
const layer = (name, from, to) => ({ name, severity: 'error', from: { path: from }, to: { path: to, ...runtime } });

const TWO_FILE_CIRCLES = [
  ['src/api/context.ts', 'src/api/resource.ts'],
  ['src/api/context.ts', 'src/config/settings/settings.ts'],
  ['src/api/resource.ts', 'src/rbac/object-roles.ts'],
  ['src/runs/run-kind.ts', 'src/runs/run-services.ts'],
  ['src/runs/run-kind.ts', 'src/runs/webhooks/delivery-launch.ts'],
  ['src/resources/credentials/credential-inputs.ts', 'src/resources/credentials/input-safety.ts'],
  ['src/inventory-import/import.ts', 'src/inventory-import/upsert.ts'],
  ['src/assistant/retrieval/corpus.ts', 'src/assistant/retrieval/openapi-reference.ts'],
];
const exactly = (files) => `^(${files.map((f) => f.replace(/[.]/g, '\\.')).join('|')})$`;
const partners = new Map();
for (const [a, b] of TWO_FILE_CIRCLES) {
  partners.set(a, [...(partners.get(a) ?? []), b]);
  partners.set(b, [...(partners.get(b) ?? []), a]);
}
const circleOfThree = (from, to) => ({ name: 'no-circle-of-three', severity: 'error', comment: 'No import circle, type-only imports included, through more than two files.', from, to: { circular: true, ...to } });
const noCircleOfThree = [
  circleOfThree({ path: '^src/', pathNot: exactly([...partners.keys()]) }, {}),
  ...[...partners].map(([file, others]) => circleOfThree({ path: exactly([file]) }, { pathNot: exactly(others) })),
];

module.exports = {
  forbidden: [
    { name: 'no-circular', severity: 'error', comment: 'No import circle.', from: {}, to: { circular: true, viaOnly: runtime } },
    ...noCircleOfThree,
    { ...layer('framework-below-domain', '^src/(db|config|secrets|templating|net|api|rbac|activity|audit|auth|live|telemetry|logging)/', '^src/(resources|eda|drift|policy|runs|run-kinds|task-manager|dispatcher|composition|server|cli|assistant)/'),
      // The OAuth2 token endpoint creates tokens, a resource.
      from: { path: '^src/(db|config|secrets|templating|net|api|rbac|activity|audit|auth|live|telemetry|logging)/', pathNot: '^src/auth/oauth2-routes\\.ts$' } },
    // Telemetry (traces, metrics): a layer of the framework on configuration, storage and the resource framework alone.
    layer('telemetry-on-the-framework', '^src/telemetry/', '^src/(?!telemetry/|config/|db/|api/|version\\.ts)'),
    // Launch policy: the engine client, the gate and the upload outbox, on the framework alone (its gate's types come from runs).
    layer('policy-below-resources', '^src/policy/', '^src/(resources|runs|run-kinds|eda|drift|task-manager|dispatcher|composition|server|cli)/'),
    // Tenant quotas: the gate and the host check resources call, on the framework and the run statuses.
    layer('quotas-below-resources', '^src/quotas/', '^src/(resources|runs/(?!lifecycle\\.ts)|run-kinds|eda|drift|policy|task-manager|dispatcher|composition|server|cli)'),
    // Drift: snapshots, diffs and alerts (queued as notifications); resources show only its categories and diffs.
    layer('drift-below-runs', '^src/drift/', '^src/(runs|run-kinds|eda|policy|task-manager|dispatcher|composition|server|cli)/'),
    layer('resources-use-drift-vocabulary-only', '^src/resources/', '^src/drift/(?!categories\\.ts$|fact-diff\\.ts$)'),
    // Scanners: the tools run in the sandbox and the gate, on projects' files; resources read only their vocabulary.
    layer('scanners-below-runs', '^src/scanners/', '^src/(runs/(?!exec\\.ts|gates\\.ts|run-kind\\.ts|lifecycle\\.ts)|run-kinds|eda|task-manager|dispatcher|composition|server|cli)'),
    layer('resources-use-scanner-vocabulary-only', '^src/resources/', '^src/scanners/(?!tools\\.ts$|config\\.ts$)'),
    layer('resources-below-eda', '^src/(resources|runs)/', '^src/eda/'),
    layer('eda-below-run-kinds', '^src/eda/', '^src/(run-kinds|task-manager|dispatcher|composition|server/|cli)'),
    layer('resources-below-runs', '^src/resources/', '^src/(runs/(?!launch\\.ts|run-services\\.ts|lifecycle\\.ts|run-kind\\.ts|run-resource\\.ts|run-fields\\.ts|exec\\.ts|prompts\\.ts|accept-prompts\\.ts)|task-manager|dispatcher|composition|server|cli)'),
    {
      name: 'resources-start-runs-only-through-queues',
      severity: 'error',
      comment: 'A resource may start a run of a kind (its queue or launcher), never reach into the kind otherwise.',
      from: { path: '^src/resources/' },
      to: { path: '^src/run-kinds/', pathNot: '^src/run-kinds/[^/]+/queue\\.ts$', ...runtime },
    },
    layer('runs-core-knows-no-kind', '^src/runs/', '^src/(run-kinds|task-manager|dispatcher|composition|server/|cli)'),
    layer('launch-knows-no-http', '^src/runs/(launch|gates|lifecycle|run-kind|prompts|accept-prompts)\\.ts$', '(^src/server/|fastify)'),
    layer('run-kinds-below-execution', '^src/run-kinds/', '^src/(dispatcher|composition|server/|cli)'),
    layer('execution-below-composition', '^src/(task-manager|dispatcher)/', '^src/(composition|server|cli)/'),
    // The notification sender: above resources (it reads templates), below composition (which starts it); runs only queue notifications.
    layer('notifications-below-composition', '^src/notifications/', '^src/(runs|run-kinds|task-manager|dispatcher|composition|server|cli)/'),
    layer('resources-below-notifications', '^src/(db|config|secrets|api|rbac|activity|audit|auth|live|logging|resources|runs|run-kinds)/', '^src/notifications/'),
    {
      name: 'assistant-uses-only-the-framework',
      severity: 'error',
      comment: 'The assistant service is its own process: storage, configuration and the framework, nothing of the domain.',
      from: { path: '^src/assistant/' },
      to: { path: '^src/', pathNot: '^src/(assistant|db|config|api|auth|version\\.ts)', ...runtime },
    },
    layer('only-processes-start-the-assistant', '^src/(?!assistant/|server/|main\\.ts)', '^src/assistant/'),
    layer('composition-below-processes', '^src/composition/', '^src/(server/(?!root-routes\\.ts)|cli)/'),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
