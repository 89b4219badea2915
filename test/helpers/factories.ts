// Factories: organizations, users, teams, role grants, projects, inventories, hosts, job templates,
// workflows and schedules made through the HTTP API of a TestApp, with defaults a test overrides
// field by field. Each one checks the status the API answered and throws with the response body
// otherwise, so a test's setup fails where it breaks instead of in some later assertion.
import assert from 'node:assert/strict';
import { createDemoData } from '../../src/server/demo-data.ts';
import type { Credentials, Response, TestApp } from './app.ts';
import { makeRepository, type GitRepository, type RepositoryFiles } from './git.ts';
import { firstProjectUpdate } from './jobs.ts';

/** A user made by a factory: its id and the credentials to send requests as it. */
export type User = Credentials & { id: number };

/** An object of the API given by id, or by its body (anything with an id). */
export type Ref = number | { id: number };

/**
 * An object that holds roles: its body as the API answered it (summary_fields.object_roles is read
 * from it when present, else its url is fetched), or its detail URL, e.g. `/api/v2/projects/3/`.
 */
export type RoleObject = string | { url: string; summary_fields?: { object_roles?: Record<string, { id: number }> } };

let serial = 0;

/** A name no other factory call of this process answers: `${prefix}-${n}`. */
export const unique = (prefix: string) => `${prefix}-${++serial}`;

const idOf = (ref: Ref) => (typeof ref === 'number' ? ref : ref.id);

function expectStatus(res: Response, status: number, what: string): Response {
  if (res.status !== status) throw new Error(`${what}: expected ${status}, got ${res.status}: ${res.text}`);
  return res;
}

/** Creates an organization (named `org-<n>` unless `name` is given) and answers its body. */
export async function newOrg(t: TestApp, fields: { name?: string; [field: string]: unknown } = {}): Promise<any> {
  const body = { ...fields, name: fields.name ?? unique('org') };
  return expectStatus(await t.post('/api/v2/organizations/', body), 201, `creating organization ${body.name}`).body;
}

export interface UserOptions {
  /** `user-<n>` unless given. */
  username?: string;
  /** `<username>-pw` unless given. */
  password?: string;
  /** Organizations the user joins as a member (POST /organizations/{id}/users/). */
  member?: Ref | Ref[];
  /** Organizations the user administers (POST /organizations/{id}/admins/). */
  admin?: Ref | Ref[];
  /** Organizations whose auditor_role the user is granted. */
  auditor?: Ref | Ref[];
  /** Other fields of the user: is_superuser, is_system_auditor, email... */
  [field: string]: unknown;
}

/** Creates a user, optionally member, admin or auditor of organizations, and answers its id and credentials. */
export async function newUser(t: TestApp, options: UserOptions = {}): Promise<User> {
  const { username = unique('user'), password = `${username}-pw`, member = [], admin = [], auditor = [], ...fields } = options;
  const res = expectStatus(await t.post('/api/v2/users/', { ...fields, username, password }), 201, `creating user ${username}`);
  const user: User = { id: res.body.id, username, password };
  for (const org of [member].flat()) {
    expectStatus(await t.post(`/api/v2/organizations/${idOf(org)}/users/`, { id: user.id }), 204, `adding ${username} to organization ${idOf(org)}`);
  }
  for (const org of [admin].flat()) {
    expectStatus(await t.post(`/api/v2/organizations/${idOf(org)}/admins/`, { id: user.id }), 204, `making ${username} admin of organization ${idOf(org)}`);
  }
  for (const org of [auditor].flat()) await grant(t, user, `/api/v2/organizations/${idOf(org)}/`, 'auditor_role');
  return user;
}

/** Creates a team of an organization (named `team-<n>` unless `name` is given), with `members` added, and answers its body. */
export async function newTeam(t: TestApp, org: Ref, fields: { name?: string; members?: Ref[]; [field: string]: unknown } = {}): Promise<any> {
  const { members = [], ...rest } = fields;
  const body = { ...rest, name: rest.name ?? unique('team'), organization: idOf(org) };
  const team = expectStatus(await t.post('/api/v2/teams/', body), 201, `creating team ${body.name}`).body;
  for (const user of members) {
    expectStatus(await t.post(`/api/v2/teams/${team.id}/users/`, { id: idOf(user) }), 204, `adding user ${idOf(user)} to team ${body.name}`);
  }
  return team;
}

/** The id of one role of an object, from its summary_fields.object_roles. */
export async function roleOf(t: TestApp, object: RoleObject, role: string): Promise<number> {
  let roles = typeof object === 'string' ? undefined : object.summary_fields?.object_roles;
  const url = typeof object === 'string' ? object : object.url;
  if (!roles?.[role]) {
    const res = expectStatus(await t.get(url), 200, `reading the roles of ${url}`);
    roles = res.body.summary_fields?.object_roles ?? {};
  }
  const found = roles![role];
  if (!found) throw new Error(`${url} has no ${role}; its roles are: ${Object.keys(roles!).join(', ') || 'none'}`);
  return found.id;
}

/** Grants a user roles of an object (POST /users/{id}/roles/ {id: role}). */
export async function grant(t: TestApp, user: Ref, object: RoleObject, ...roles: string[]): Promise<void> {
  for (const role of roles) {
    const res = await t.post(`/api/v2/users/${idOf(user)}/roles/`, { id: await roleOf(t, object, role) });
    expectStatus(res, 204, `granting user ${idOf(user)} ${role} of ${typeof object === 'string' ? object : object.url}`);
  }
}

/** Grants a team roles of an object (POST /teams/{id}/roles/ {id: role}). */
export async function grantTeam(t: TestApp, team: Ref, object: RoleObject, ...roles: string[]): Promise<void> {
  for (const role of roles) {
    const res = await t.post(`/api/v2/teams/${idOf(team)}/roles/`, { id: await roleOf(t, object, role) });
    expectStatus(res, 204, `granting team ${idOf(team)} ${role} of ${typeof object === 'string' ? object : object.url}`);
  }
}

/**
 * One new user per role of an object, by role name, plus `nobody` (a user with no role at all) and,
 * with `otherOrgAdmin`, the admin of another organization. `roles` lists role fields, or maps the
 * names to answer to role fields: `{ 'org admin': 'admin_role' }`. For a test to loop over:
 *
 *   const users = await roleMatrix(t, project, ['admin_role', 'use_role']);
 *   for (const [who, status] of Object.entries({ admin_role: 200, use_role: 403, nobody: 403 })) ...
 */
export async function roleMatrix<const R extends string>(
  t: TestApp,
  object: RoleObject,
  roles: readonly R[] | Record<R, string>,
  options: { otherOrgAdmin?: boolean } = {},
): Promise<Record<R | 'nobody', User> & { otherOrgAdmin?: User }> {
  const pairs: [string, string][] = Array.isArray(roles) ? roles.map((r) => [r, r]) : Object.entries(roles as Record<string, string>);
  const users: Record<string, User> = {};
  for (const [name, role] of pairs) {
    users[name] = await newUser(t, { username: unique(name.replace(/[^A-Za-z0-9]+/g, '-')) });
    await grant(t, users[name], object, role);
  }
  users.nobody = await newUser(t, { username: unique('nobody') });
  if (options.otherOrgAdmin) users.otherOrgAdmin = await newUser(t, { username: unique('other-org-admin'), admin: await newOrg(t) });
  return users as Record<R | 'nobody', User> & { otherOrgAdmin?: User };
}

/** A playbook that says hello on every host, without gathering facts. */
export const HELLO_PLAYBOOK = '- hosts: all\n  gather_facts: false\n  tasks:\n    - debug: msg=hello\n';

/** Inventory variables that run every host on this machine, with the system's Python. */
export const LOCAL_VARIABLES = 'ansible_connection: local\nansible_python_interpreter: /usr/bin/python3';

export interface ProjectOptions {
  /** `project-<n>` unless given. */
  name?: string;
  /** The git repository the project checks out (file:// URL of its bare repository); a new one holding `files` unless given. */
  repo?: GitRepository;
  /** The files of the new repository: `hello.yml` (HELLO_PLAYBOOK) unless given. */
  files?: RepositoryFiles;
  /** Waits for the project's first update and requires it successful (default true). */
  sync?: boolean;
  /** Other fields of the project: scm_branch, credential, scm_update_on_launch... A `local_path` makes a manual project (no repository, no update). */
  [field: string]: unknown;
}

/**
 * Creates a git project of an organization on a real repository (tests may use repositories in
 * their temporary directory, see TestAppOptions.localSourceDirs) and, unless `sync` is false, waits
 * for its first update to succeed; answers the project as the API shows it then.
 */
export async function newProject(t: TestApp, org: Ref, options: ProjectOptions = {}): Promise<any> {
  const { name = unique('project'), repo, files, sync = true, ...fields } = options;
  const manual = fields.local_path !== undefined;
  const source = manual ? {} : { scm_type: 'git', scm_url: `file://${(repo ?? (await makeRepository(files ?? { 'hello.yml': HELLO_PLAYBOOK }))).bare}` };
  const body = { name, organization: idOf(org), ...source, ...fields };
  const project = expectStatus(await t.post('/api/v2/projects/', body), 201, `creating project ${name}`).body;
  if (manual || !sync) return project;
  const update = await firstProjectUpdate(t, project.id);
  if (update.status !== 'successful') throw new Error(`the first update of project ${name} ended ${update.status}: ${update.result_traceback || update.job_explanation}`);
  return expectStatus(await t.get(`/api/v2/projects/${project.id}/`), 200, `reading project ${name}`).body;
}

export interface InventoryOptions {
  /** `inventory-<n>` unless given. */
  name?: string;
  /** Runs its hosts on this machine (variables LOCAL_VARIABLES) unless false or `variables` is given. */
  local?: boolean;
  /** Hosts to add, by name (in this order). */
  hosts?: string[];
  /** Other fields of the inventory. */
  [field: string]: unknown;
}

/** Creates an inventory of an organization, with `hosts`, and answers its body. */
export async function newInventory(t: TestApp, org: Ref, options: InventoryOptions = {}): Promise<any> {
  const { name = unique('inventory'), local = true, hosts = [], ...fields } = options;
  const body = { name, organization: idOf(org), ...(local && { variables: LOCAL_VARIABLES }), ...fields };
  const inventory = expectStatus(await t.post('/api/v2/inventories/', body), 201, `creating inventory ${name}`).body;
  for (const host of hosts) await newHost(t, inventory, { name: host });
  return inventory;
}

/** Creates a host of an inventory (named `host-<n>` unless `name` is given) and answers its body. */
export async function newHost(t: TestApp, inventory: Ref, fields: { name?: string; [field: string]: unknown } = {}): Promise<any> {
  const body = { ...fields, name: fields.name ?? unique('host'), inventory: idOf(inventory) };
  return expectStatus(await t.post('/api/v2/hosts/', body), 201, `creating host ${body.name}`).body;
}

export interface JobTemplateOptions {
  project: Ref;
  inventory?: Ref | null;
  /** `hello.yml` unless given. */
  playbook?: string;
  /** `job-template-<n>` unless given. */
  name?: string;
  /** Other fields: ask_*_on_launch, extra_vars, survey_enabled, allow_simultaneous... */
  [field: string]: unknown;
}

/** Creates a job template of a project (and inventory) and answers its body. */
export async function newJobTemplate(t: TestApp, options: JobTemplateOptions): Promise<any> {
  const { project, inventory, playbook = 'hello.yml', name = unique('job-template'), ...fields } = options;
  const body = { name, project: idOf(project), ...(inventory !== undefined && { inventory: inventory === null ? null : idOf(inventory) }), playbook, ...fields };
  return expectStatus(await t.post('/api/v2/job_templates/', body), 201, `creating job template ${name}`).body;
}

/** A workflow node: an approval node (the default: answered by the test), or a node running a template, by id. */
export interface NodeSpec {
  template?: number;
  approval?: { timeout?: number };
  /** all_parents_must_converge. */
  converge?: boolean;
  extra?: Record<string, unknown>;
}

/** An edge [parent, kind, child, condition?] between node identifiers. */
export type Edge = [string, 'success' | 'failure' | 'always', string, string?];

export interface WorkflowOptions {
  /** `workflow-<n>` unless given. */
  name?: string;
  /** The nodes by identifier. */
  nodes?: Record<string, NodeSpec>;
  edges?: Edge[];
  /** Other fields of the workflow job template. */
  [field: string]: unknown;
}

/**
 * Creates a workflow job template of an organization with its nodes (an approval node is named
 * `<workflow> <identifier>`) and edges; answers its body and the ids of its nodes by identifier.
 */
export async function newWorkflow(t: TestApp, org: Ref, options: WorkflowOptions = {}): Promise<any & { nodes: Record<string, number> }> {
  const { name = unique('workflow'), nodes = {}, edges = [], ...fields } = options;
  const workflow = expectStatus(await t.post('/api/v2/workflow_job_templates/', { name, organization: idOf(org), ...fields }), 201, `creating workflow ${name}`).body;
  const ids: Record<string, number> = {};
  for (const [identifier, spec] of Object.entries(nodes)) {
    const node = expectStatus(await t.post('/api/v2/workflow_job_template_nodes/', {
      workflow_job_template: workflow.id, identifier, unified_job_template: spec.template ?? null, all_parents_must_converge: spec.converge ?? false,
      ...(spec.extra && { extra_data: spec.extra }),
    }), 201, `creating node ${identifier} of workflow ${name}`).body;
    ids[identifier] = node.id;
    if (!spec.template) {
      const approval = { name: `${name} ${identifier}`, timeout: spec.approval?.timeout ?? 0 };
      expectStatus(await t.post(`/api/v2/workflow_job_template_nodes/${node.id}/create_approval_template/`, approval), 201, `making node ${identifier} of workflow ${name} an approval`);
    }
  }
  for (const [parent, kind, child, condition] of edges) {
    const res = await t.post(`/api/v2/workflow_job_template_nodes/${ids[parent]}/${kind}_nodes/`, { id: ids[child], ...(condition && { condition }) });
    expectStatus(res, 204, `linking ${parent} to ${child} (${kind}) in workflow ${name}`);
  }
  return { ...workflow, nodes: ids };
}

/** An rrule whose first occurrence is `seconds` from now (UTC), repeating every `interval` minutes. */
export function rruleIn(seconds: number, extra = 'FREQ=MINUTELY;INTERVAL=60'): string {
  const at = new Date(Date.now() + seconds * 1000);
  const stamp = at.toISOString().replace(/[-:]/g, '').slice(0, 15);
  return `DTSTART:${stamp}Z RRULE:${extra}`;
}

/**
 * Creates a schedule of a template (job, workflow, project...: any unified job template) and answers
 * its body; the rule, unless given, first falls due in a day, after any test has ended.
 */
export async function newSchedule(t: TestApp, template: Ref, fields: { name?: string; rrule?: string; [field: string]: unknown } = {}): Promise<any> {
  const body = { ...fields, name: fields.name ?? unique('schedule'), rrule: fields.rrule ?? rruleIn(86_400), unified_job_template: idOf(template) };
  return expectStatus(await t.post('/api/v2/schedules/', body), 201, `creating schedule ${body.name}`).body;
}

/**
 * A copy of the demo job template (the demo data made first) in the Default organization, with
 * these fields changed (ask_*_on_launch flags): a template that runs for real on localhost.
 */
export async function demoTemplateCopy(t: TestApp, name: string, fields: Record<string, unknown>): Promise<{ org: number; template: number }> {
  await createDemoData(t.services);
  const org = (await t.get('/api/v2/organizations/?name=Default')).body.results[0].id;
  const demo = (await t.get('/api/v2/job_templates/?name=Demo+Job+Template')).body.results[0];
  // The copy checks its playbook against the project's checkout.
  assert.equal((await firstProjectUpdate(t, demo.project)).status, 'successful');
  const copy = await t.post(`/api/v2/job_templates/${demo.id}/copy/`, { name });
  assert.equal(copy.status, 201, copy.text);
  const changed = await t.patch(`/api/v2/job_templates/${copy.body.id}/`, fields);
  assert.equal(changed.status, 200, changed.text);
  return { org, template: copy.body.id };
}
