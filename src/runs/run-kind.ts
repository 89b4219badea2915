import type { LaunchMemo } from './launch-memo.ts';
import type { RequestContext, ResourceSet } from '../api/context.ts';
import type { Database, Queryable } from '../db/database.ts';
import type { ServiceCatalogItemRow, UnifiedJobRow, WorkflowJobNodeRow } from '../db/tables.ts';
import type { Resource } from '../api/resource.ts';
import type { RunRouteModule, RunServices, ScheduledLaunch } from './run-services.ts';
import type { Row } from '../db/database.ts';
import { commandEvents, type EventShape } from './run-events.ts';
import type { RunCleanup } from './cleanup-runs.ts';
import type { EventStream } from '../live/messages.ts';
import type { WebhookLaunch } from './webhooks/delivery-launch.ts';
import type { TemplateFacet } from './prompts.ts';

/** What a launch makes: the new run's columns and what belongs to it. */
export interface RunPlan<Template extends Row = Row> {
  /** Column values of the new run (its kind, status and creator are added). */
  values: Record<string, unknown>;
  /** Stores what belongs to the run (credentials, labels...) once it exists, before the gates look at it. */
  link?(tx: Queryable, run: UnifiedJobRow): Promise<void>;
  /** Input the template does not let the launcher choose, reported back as AWX does (ignored_fields). */
  ignored?: Record<string, unknown>;
  /** The template as the plan read it, when the launch was not given it (a relaunch finds the job's). */
  template?: Template;
  /** What started the launch, when its launch type does not say it all (a service catalog request): gates see it. */
  trigger?: LaunchTrigger;
}

/**
 * What started a launch, as gates see it (the policy document's `trigger`): `type` names the
 * trigger (the run's launch type unless its plan says more: `catalog`), with what it brings.
 */
export interface LaunchTrigger {
  type: string;
  [detail: string]: unknown;
}

/**
 * How one kind's template becomes a run. `plan` runs inside the launch's transaction: it checks
 * that the caller may launch, validates the input and throws a typed error (403, 400) to refuse.
 */
export interface Launcher<Input, Template extends Row = Row> {
  kind: RunKindRef;
  plan(tx: Queryable, ctx: RequestContext, template: Template | null, input: Input): Promise<RunPlan<Template>>;
}

export type FinalStatus = 'successful' | 'failed' | 'error' | 'canceled';

export interface RunOutcome {
  status: 'successful' | 'failed' | 'error';
  explanation?: string;
  /** Further unified_jobs columns to store with the final status (scm_revision...). */
  updates?: Record<string, unknown>;
}

export interface ExecOptions {
  cwd?: string;
  env?: Record<string, string>;
  /** Values replaced by $encrypted$ wherever they would appear in the output. */
  secrets?: string[];
  /** Answer standard output instead of showing it (standard error is still shown). */
  captureStdout?: boolean;
  /** Text written to the process's standard input. */
  stdin?: string;
  /** Takes every output line (scrubbed) instead of showing it: for processes that print events. */
  onLine?: (line: string, stream: 'stdout' | 'stderr') => void;
  /** Told the process id (also its process group's) once it starts. */
  onSpawn?: (pid: number) => void;
  /** What the process sees beyond the run's private directory (docs/security.md, "Runs are isolated"). */
  sandbox?: SandboxMounts;
}

/** Directories of the service host a run's process sees; everything else of the service stays hidden. */
export interface SandboxMounts {
  readable?: string[];
  writable?: string[];
}

export interface ExecResult {
  code: number | null;
  stdout: string;
  /** Standard error as shown (secrets scrubbed), for reporting why a command failed. */
  stderr: string;
}

/** What a runner gets for one run. */
export interface RunContext {
  db: Database;
  services: RunServices;
  /** Aborted on cancel or timeout; running processes are stopped by it. */
  signal: AbortSignal;
  /** A fresh directory only the service can read, removed after the run whatever happens. */
  privateDir: string;
  /** The run's time limit in seconds, 0 for none. */
  timeoutSeconds: number;
  /** Appends text to the run's output (one event per line). */
  output(text: string): Promise<void>;
  exec(command: string, args: string[], options?: ExecOptions): Promise<ExecResult>;
  /** The next event's counter less one and its first line, for runs that store events of their own. */
  position(): Promise<{ counter: number; line: number }>;
  /** Moves the run's own output past events stored by another writer. */
  advance(counter: number, line: number): void;
}

export type Runner = (job: UnifiedJobRow, run: RunContext) => Promise<RunOutcome>;

/** What a workflow node hands the launcher of its template's kind (the workflow pass starts it). */
export interface WorkflowNodeLaunch {
  /** Its saved prompts; extra_data is stored as an object (never null). */
  node: WorkflowJobNodeRow & { extra_data: Record<string, unknown> };
  workflowJob: Row & { id: number };
  /** The workflow's variables and its ancestors' artifacts, merged by the workflow pass. */
  extraVars: Record<string, unknown>;
  /** The node's credentials, when the pass read them with its other nodes'. */
  credentialIds?: readonly number[];
  /** Reads shared with the other nodes the pass starts in its transaction. */
  memo?: LaunchMemo;
}

/**
 * A request of the service catalog launching its item's template (docs/service-catalog.md): the
 * run is the requester's (the launch's caller), its authority the item's: the requester needs no
 * role on the template, and gives only answers to its survey, checked when the request was made.
 */
export interface CatalogLaunch {
  item: Pick<ServiceCatalogItemRow, 'id' | 'name' | 'organization_id' | 'job_template_id' | 'workflow_job_template_id'>;
  request: { id: number };
  /** The answers to the template's survey as the request stores them (answers to password questions encrypted). */
  answers: Record<string, unknown>;
  /** A workflow's answers to the surveys of its nodes' templates, by node identifier, stored the same way. */
  nodeAnswers: Record<string, Record<string, unknown>>;
  /** Who asked for it. */
  requester: { id: number; username: string };
}

/**
 * The ways a run is started, each with what its launcher is given. A new trigger (a bulk launch)
 * is one line here and a launcher in the kinds that offer it.
 */
export interface TriggerInputs {
  /** A person's launch: launch/, update/ or a POST on the kind's list (the input is the request's). */
  manual: unknown;
  /** relaunch/ of an earlier run. */
  relaunch: unknown;
  /** A host's provisioning callback (job templates). */
  callback: unknown;
  /** A due schedule of the template (launch_type scheduled). */
  schedule: ScheduledLaunch;
  /** A node of a running workflow whose template is of the kind (launch_type workflow). */
  workflowNode: WorkflowNodeLaunch;
  /** A delivery of the template's webhook (GitHub, GitLab). */
  webhook: WebhookLaunch;
  /** A firing event rule whose action launches the template. */
  eventRule: WebhookLaunch;
  /** A service catalog request, at submit or approval (launch_type manual, the requester's run). */
  catalog: CatalogLaunch;
}

export type Trigger = keyof TriggerInputs;

/** A kind's launcher of each trigger it offers (any template row type: each kind reads its own); a trigger it lacks cannot start its runs. */
export type KindLaunchers = { readonly [T in Trigger]?: Launcher<TriggerInputs[T], any> };

/** How notifications speak of a kind's runs (AWX's notification_data and get_notification_templates of the kind). */
export interface RunMessages {
  /** How messages name its runs (job_friendly_name). */
  friendly: string;
  /** Its runs' page in the UI: /#/jobs/<ui>/<id>. */
  ui: string;
  /** job_metadata also carries its hosts' summaries, playbook, inventory, project and limit (jobs). */
  playbookFacts?: true;
  /** The notification templates of its run's project are also its own (jobs). */
  projectTemplates?: true;
  /** Its page is also the message's workflow_url (workflow jobs, whose approvals' messages point there). */
  workflowUrl?: true;
}

/** Where a run's preferred instance groups come from: the <owner>_instance_groups of the run's <owner>_id. */
export type InstanceGroupOwner = 'job_template' | 'inventory' | 'organization';

/** For kinds that bring something up to date (project and inventory updates): what runs waiting for them look at. */
export interface UpdateFacet {
  /** The unified_jobs column naming what an update brings up to date; runs with the same value wait for it. */
  of: 'project_id' | 'inventory_id';
  /**
   * The updates runs with these values of `of` need before they start (AWX's dependency manager):
   * an open one, or a new one when the last is too old or failed. By value, the updates' ids.
   */
  dependencies?(tx: Queryable, system: RequestContext, values: number[]): Promise<Map<number, number[]>>;
}

/** What a launch of the kind is to policies (docs/policy.md#the-context-document). */
export interface PolicyFacet {
  /** Its resource types in a policy's applies_to, the usual one first. */
  resourceTypes: readonly string[];
  /** The resource type of one run when it is not the first (a sliced job template launch makes a workflow job). */
  resourceTypeOf?(run: UnifiedJobRow): string;
  /** The run itself is the document's resource (ad hoc commands); otherwise its template. */
  resourceIsRun?: boolean;
}

/** An event rule action launching the kind's templates (docs/event-driven.md#actions); the kind's eventRule launcher makes the run. */
export interface EventRuleAction {
  /** The action_type naming it (launch_job_template). */
  type: string;
  /** How messages name a target (job template). */
  label: string;
  /** The role a rule's author needs on the target, on its content type. */
  contentType: string;
  role: string;
}

/** The outcomes of a run outbound webhooks may hear of (docs/outbound-webhooks.md#events). */
export type WebhookOutcome = 'started' | 'succeeded' | 'failed' | 'canceled';

/** The outbound webhook events of a kind's runs: `<prefix>.<outcome>` for each outcome it has. */
export interface WebhookEvents {
  prefix: string;
  outcomes: readonly WebhookOutcome[];
}

/**
 * A run kind (job, ad hoc command, project update, inventory update): everything the core needs to
 * know about it. Each kind's folder under src/run-kinds/ exports one; the composition root lists them.
 */
export interface RunKind {
  /** The value of unified_jobs.kind, also the name of its resource. */
  name: string;
  /** Its declaration: the resource its runs are read (and for some kinds created) through. */
  resource: Resource;
  run: Runner;
  /** Table of the template kind this run kind belongs to, whose status follows its runs. */
  templateTable?: string;
  /** Its templates' table and the prompts a launch of one may choose, which every trigger reads through acceptPrompts. */
  template?: TemplateFacet;
  /** False for templates that are not sources (job templates have no last_update_failed / last_updated). */
  templateIsSource?: boolean;
  /** Seconds allowed when the run has no timeout of its own (a setting name). */
  defaultTimeoutSetting?: string;
  /** False for runs that send no started/success/error notifications of their own (workflow approvals). */
  runNotifications?: false;
  /** Runs inside the transaction that stores the final status (computed fields of the inventory...), with the composition's resources. */
  afterFinish?(tx: Queryable, job: UnifiedJobRow, resources: ResourceSet): Promise<void>;
  /** Endpoints the kind adds: its run endpoints (stdout, events, cancel) and how it is launched. */
  routes: readonly RunRouteModule[];
  /** Its runs execute playbooks on managed hosts: the task manager places them on hybrid and execution nodes (otherwise hybrid and control nodes). */
  onExecutionNodes?: true;
  /** False for kinds whose runs take no capacity and run no process (workflow jobs, approvals): the task manager does not place them. */
  placed?: boolean;
  /** How its events are shown (AWX's event serializer of the kind); command events named after the kind unless said. */
  events?: EventShape;
  /** The websocket group its events are pushed to (AWX's names; `<name>_events` unless said), or false for a kind without events. */
  eventGroup?: string | false;
  /** How notification messages name its runs (job_friendly_name) and their page in the UI (/#/jobs/<ui>/<id>, also linked by commit statuses). */
  messages?: RunMessages;
  /** Whether cleanup_jobs deletes its old runs, and how it names them; absent: its runs are kept. */
  cleanup?: RunCleanup;
  /** How its runs are started, by trigger. Schedules, workflow nodes, webhooks and event rules offer the kinds that have their launcher. */
  launchers?: KindLaunchers;
  /** The update kinds whose open runs of the same project or inventory, queued before its run, finish first; `launches`: its runs launch those they need (AWX's dependency manager). */
  waitsFor?: { updates: readonly string[]; launches?: boolean };
  /** For update kinds: what they bring up to date and the updates a waiting run needs. */
  update?: UpdateFacet;
  /** Where its runs' instance groups come from, in preference order, when none were chosen at launch (the inventory's, then the organization's, unless said). */
  instanceGroupsFrom?: readonly InstanceGroupOwner[];
  /** What its launches are to policies; absent: policies do not gate them. */
  policy?: PolicyFacet;
  /** The event rule action launching its templates; absent: rules cannot launch them. */
  eventRuleAction?: EventRuleAction;
  /** The action of the template's access policy a launch of it needs (execute unless said: update for sources); creating a schedule asks it. */
  templateAction?: 'execute' | 'update';
  /**
   * Its place among the types of /unified_jobs/ (OPTIONS `types`, the choices of `type`), lowest
   * first: AWX lists project_update, inventory_update, job, ad_hoc_command, system_job, workflow_job,
   * workflow_approval. Kinds without one follow, in their order.
   */
  unifiedJobsPosition?: number;
  /** Its job_type in the dashboard's jobs graph (AWX's playbook_run, scm_update, inv_sync); absent: counted only under `all`. */
  dashboardJobType?: string;
  /** The outbound webhook events its runs' status changes are; absent: none. */
  webhookEvents?: WebhookEvents;
}

/**
 * What keeps a state of its own in step with runs (a service request with the run it launched):
 * told of every run's final status inside the transaction that stores it (finishRun). The
 * composition root lists them (RUN_FOLLOWERS); they must be quick and must not fail.
 */
export interface RunFollower {
  name: string;
  finished(tx: Queryable, run: UnifiedJobRow): Promise<void>;
}

/** What creating a run needs to know of its kind: its name and the table of its templates. */
export type RunKindRef = Pick<RunKind, 'name' | 'templateTable'>;

/** The run kinds of a service, by name. */
export class RunKinds {
  private readonly byName: ReadonlyMap<string, RunKind>;
  private readonly streams: ReadonlyMap<string, EventStream>;
  private readonly streamsByGroup: ReadonlyMap<string, EventStream>;

  /**
   * `resources`: the composition's, which kinds' hooks (afterFinish) resolve names through;
   * `followers`: told of every run's end (RunFollower).
   */
  constructor(readonly all: readonly RunKind[], readonly resources: ResourceSet, readonly followers: readonly RunFollower[] = []) {
    this.byName = new Map(all.map((k) => [k.name, k]));
    const streams = all.filter((k) => k.eventGroup !== false).map((k): EventStream => ({
      kind: k.name,
      group: k.eventGroup || `${k.name}_events`,
      playbook: k.events?.playbook ?? false,
      eventsPath: (k.resource as { eventsPath?: string }).eventsPath ?? 'events',
    }));
    this.streams = new Map(streams.map((s) => [s.kind, s]));
    this.streamsByGroup = new Map(streams.map((s) => [s.group, s]));
  }

  /** How live output pushes the events of the kind named `name`, or undefined for a kind without events. */
  eventStream(name: string): EventStream | undefined {
    return this.streams.get(name);
  }

  /** The events a websocket group (job_events...) carries, or undefined. */
  eventStreamOfGroup(group: string): EventStream | undefined {
    return this.streamsByGroup.get(group);
  }

  get(name: string): RunKind {
    const kind = this.byName.get(name);
    if (!kind) throw new Error(`unknown run kind "${name}"`);
    return kind;
  }

  names(): string[] {
    return [...this.byName.keys()];
  }

  /** The launcher of `trigger` of the kind named `name` (update/ of a project starts a project_update's manual one). */
  launcher<T extends Trigger>(name: string, trigger: T): NonNullable<KindLaunchers[T]> {
    const launcher = this.get(name).launchers?.[trigger];
    if (!launcher) throw new Error(`run kind "${name}" has no ${trigger} launcher`);
    return launcher;
  }

  /** How the events of the kind named `name` are shown. */
  events(name: string): EventShape {
    return this.get(name).events ?? commandEvents(name);
  }

  /** The kinds with a launcher for `trigger`, in their order. */
  withTrigger<T extends Trigger>(trigger: T): Array<RunKind & { launchers: Required<Pick<KindLaunchers, T>> }> {
    return this.all.filter((k): k is RunKind & { launchers: Required<Pick<KindLaunchers, T>> } => Boolean(k.launchers?.[trigger]));
  }

  /** The kind whose runs belong to templates of `table`, or undefined. */
  forTemplateTable(table: string): RunKind | undefined {
    return this.all.find((k) => k.templateTable === table);
  }

  /** The resource of a kind's templates (its name is the template's kind in unified_job_templates). */
  templateResource(kind: RunKind): Resource | undefined {
    return kind.templateTable === undefined ? undefined : this.resources.all.find((r) => r.table === kind.templateTable && r.topLevel);
  }

  /** The kinds that bring something up to date (project and inventory updates), in their order. */
  updateKinds(): Array<RunKind & { update: UpdateFacet }> {
    return this.all.filter((k): k is RunKind & { update: UpdateFacet } => k.update !== undefined);
  }

  /** Every resource type a policy's applies_to may name, in the kinds' order. */
  policyResourceTypes(): string[] {
    return [...new Set(this.all.flatMap((k) => k.policy?.resourceTypes ?? []))];
  }

  /** The event rule actions launching templates, with the kind each launches. */
  eventRuleActions(): Array<RunKind & { eventRuleAction: EventRuleAction }> {
    return this.all.filter((k): k is RunKind & { eventRuleAction: EventRuleAction } => k.eventRuleAction !== undefined);
  }

  /** The types /unified_jobs/ holds: every kind's name, by unifiedJobsPosition, then the others in their order. */
  unifiedJobTypes(): string[] {
    const position = (k: RunKind) => k.unifiedJobsPosition ?? Number.POSITIVE_INFINITY;
    return this.all.map((k, i) => ({ k, i })).sort((a, b) => position(a.k) - position(b.k) || a.i - b.i).map(({ k }) => k.name);
  }

  /** The dashboard's jobs graph job_type of each kind that has one, with the kind's name, in the kinds' order. */
  dashboardJobTypes(): Array<[jobType: string, kind: string]> {
    return this.all.filter((k) => k.dashboardJobType !== undefined).map((k) => [k.dashboardJobType!, k.name]);
  }

  /** Every outbound webhook event, the kinds' in their order. */
  webhookEventTypes(): string[] {
    return this.all.flatMap((k) => (k.webhookEvents ? k.webhookEvents.outcomes.map((outcome) => `${k.webhookEvents!.prefix}.${outcome}`) : []));
  }

  /** The kind update/ of what `of` names launches (project_id: project updates); the first when several bring it up to date. */
  updateKindOf(of: UpdateFacet['of']): RunKind & { update: UpdateFacet } {
    const kind = this.updateKinds().find((k) => k.update.of === of);
    if (!kind) throw new Error(`no run kind brings ${of} up to date`);
    return kind;
  }

  /** The names of the update kinds bringing up to date what `of` names (project_id: project updates). */
  updateKindsOf(of: UpdateFacet['of']): string[] {
    return this.updateKinds().filter((k) => k.update.of === of).map((k) => k.name);
  }

  /** The kinds the task manager places on instances. */
  placedNames(): string[] {
    return this.all.filter((k) => k.placed !== false).map((k) => k.name);
  }
}
