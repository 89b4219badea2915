import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  createTestApp, newHost, newInventory, newJobTemplate, newOrg, newProject, newSchedule, newTeam, newUser, newWorkflow, unique,
  type TestApp, type User,
} from './helpers/app.ts';
import { HELLO_PLAYBOOK } from './helpers/factories.ts';
import { launchDueSchedules } from '../src/task-manager/scheduler.ts';
import { eventually } from './helpers/jobs.ts';
import { scheduledTemplate } from './helpers/schedules.ts';
import { makeTenant } from './helpers/tenant-rows.ts';
import { provisionTenant } from './helpers/tenants.ts';

/** What each tenant holds: one object of every kind that belongs to an organization. */
interface World {
  org: number;
  orgName: string;
  project: any;
  inventory: any;
  spareInventory: any;
  host: any;
  group: any;
  source: any;
  machine: number;
  scm: number;
  template: any;
  workflow: any;
  node: number;
  schedule: number;
  notification: number;
  label: number;
  team: any;
  item: number;
  rule: number;
  policy: number;
  environment: number;
}

const REFUSED_WRITE = /belongs to another tenant|cannot move/;

/**
 * Isolation between tenants (docs/tenants.md, "Isolation"): two tenants A and B, an administrator
 * of both, an auditor of A only and an administrator of B only. Nothing of B shows to A's auditor;
 * nothing of B can be attached to A's objects or named when launching A's templates, even by the
 * administrator of both; the same actions within A succeed.
 */
describe('tenant isolation', () => {
  let t: TestApp;
  let a: World;
  let b: World;
  let both: User;
  let auditorA: User;
  let adminB: User;
  let ssh: number;
  let scmType: number;

  /** A's tenant is provisioned through the API; B is an organization made a tenant afterwards, with what it holds. */
  async function world(tag: string, how: 'provisioned' | 'flagged'): Promise<World> {
    const orgName = unique(`tenant-${tag}`);
    const org = how === 'provisioned' ? (await provisionTenant(t, { name: orgName })).organization : (await newOrg(t, { name: orgName })).id;
    const project = await newProject(t, org, { files: { 'hello.yml': HELLO_PLAYBOOK, 'hosts.ini': 'localhost\n' } });
    const inventory = await newInventory(t, org, { name: unique(`inventory-${tag}`) });
    const spareInventory = await newInventory(t, org);
    const host = await newHost(t, inventory);
    const group = (await created('/api/v2/groups/', { name: unique('group'), inventory: inventory.id }));
    const source = await created('/api/v2/inventory_sources/', { name: unique('source'), inventory: inventory.id, source: 'scm', source_project: project.id, source_path: 'hosts.ini' });
    const machine = (await created('/api/v2/credentials/', { name: unique('machine'), organization: org, credential_type: ssh, inputs: { username: 'deploy' } })).id;
    const scm = (await created('/api/v2/credentials/', { name: unique('git'), organization: org, credential_type: scmType, inputs: { username: 'u' } })).id;
    const template = await newJobTemplate(t, {
      project, inventory, ask_inventory_on_launch: true, ask_credential_on_launch: true, ask_labels_on_launch: true, ask_execution_environment_on_launch: true,
    });
    const workflow = await newWorkflow(t, org, { nodes: { first: { template: template.id } }, ask_inventory_on_launch: true });
    const schedule = (await newSchedule(t, template.id)).id;
    const notification = (await created('/api/v2/notification_templates/', {
      name: unique('notification'), organization: org, notification_type: 'webhook', notification_configuration: { url: 'http://127.0.0.1:9/hook', headers: {} },
    })).id;
    const label = (await created('/api/v2/labels/', { name: unique('label'), organization: org })).id;
    const team = await newTeam(t, org);
    const item = (await created('/api/v2/service_catalog_items/', { name: unique('item'), organization: org, job_template: template.id })).id;
    const path = unique(`rule-${tag}`);
    const rule = (await created('/api/v2/event_rules/', {
      name: path, organization: org, webhook_path: path, conditions: [{ jinja2_expression: 'event.kind == "deploy"', description: 'deploys' }],
      actions: [{ action_type: 'launch_job_template', target_id: template.id }],
    })).id;
    const pkg = `drover.org_${org}.launch`;
    const policy = (await created('/api/v2/policies/', {
      name: unique('policy'), organization: org, package_path: pkg, rego_module: `package ${pkg}\n\ndeny contains msg if {\n  input.extra_vars.env == "prod"\n  msg := "no prod"\n}\n`,
    })).id;
    const environment = (await created('/api/v2/execution_environments/', { name: unique('ee'), image: 'quay.io/acme/ee:1', organization: org })).id;
    if (how === 'flagged') await makeTenant(t, org);
    return {
      org, orgName, project, inventory, spareInventory, host, group, source, machine, scm, template, workflow, node: workflow.nodes.first,
      schedule, notification, label, team, item, rule, policy, environment,
    };
  }

  async function created(url: string, body: Record<string, unknown>): Promise<any> {
    const res = await t.post(url, body);
    assert.equal(res.status, 201, `${url}: ${res.text}`);
    return res.body;
  }

  /** Each kind's list and the object of a world to look for in it. */
  const kinds = (w: World): [string, number][] => [
    ['projects', w.project.id], ['inventories', w.inventory.id], ['hosts', w.host.id], ['groups', w.group.id], ['inventory_sources', w.source.id],
    ['credentials', w.machine], ['job_templates', w.template.id], ['workflow_job_templates', w.workflow.id], ['workflow_job_template_nodes', w.node],
    ['schedules', w.schedule], ['notification_templates', w.notification], ['labels', w.label], ['teams', w.team.id],
    ['service_catalog_items', w.item], ['event_rules', w.rule], ['policies', w.policy], ['execution_environments', w.environment],
    ['organizations', w.org], ['unified_job_templates', w.template.id],
  ];

  before(async () => {
    t = await createTestApp();
    ssh = (await t.get('/api/v2/credential_types/?namespace=ssh')).body.results[0].id;
    scmType = (await t.get('/api/v2/credential_types/?namespace=scm')).body.results[0].id;
    a = await world('a', 'provisioned');
    b = await world('b', 'flagged');
    both = await newUser(t, { admin: [a.org, b.org] });
    auditorA = await newUser(t, { auditor: a.org });
    adminB = await newUser(t, { admin: b.org });
  });
  after(async () => {
    await t?.close();
  });

  it("lists and details show A's auditor A's objects of every kind and none of B's", async () => {
    for (const [[kind, ours], [, theirs]] of kinds(a).map((k, i) => [k, kinds(b)[i]] as const)) {
      const list = await t.get(`/api/v2/${kind}/?page_size=200`, { as: auditorA });
      assert.equal(list.status, 200, `${kind}: ${list.text}`);
      const ids = list.body.results.map((r: any) => r.id);
      assert.ok(ids.includes(ours), `${kind}: A's ${ours} is listed`);
      assert.ok(!ids.includes(theirs), `${kind}: B's ${theirs} is not listed`);
      assert.equal((await t.get(`/api/v2/${kind}/${ours}/`, { as: auditorA })).status, 200, `${kind}: A's detail`);
      assert.ok([403, 404].includes((await t.get(`/api/v2/${kind}/${theirs}/`, { as: auditorA })).status), `${kind}: B's detail is refused`);
      assert.ok([403, 404].includes((await t.get(`/api/v2/${kind}/${ours}/`, { as: adminB })).status), `${kind}: B's admin cannot read A's`);
    }
  });

  it("the users of one tenant are hidden from the other's admins and auditors, though they see every other user", async () => {
    const loner = await newUser(t);
    const seen = async (who: User) => (await t.get('/api/v2/users/?page_size=200', { as: who })).body.results.map((u: any) => u.id);
    const byA = await seen(auditorA);
    assert.ok(byA.includes(both.id) && byA.includes(loner.id), 'A sees its own users and users of no tenant');
    assert.ok(!byA.includes(adminB.id), "A's auditor does not see B's admin");
    assert.ok([403, 404].includes((await t.get(`/api/v2/users/${adminB.id}/`, { as: auditorA })).status));
    const byB = await seen(adminB);
    assert.ok(byB.includes(both.id) && byB.includes(loner.id));
    assert.ok(!byB.includes(auditorA.id), "B's admin does not see A's auditor");
  });

  it('filters through related paths leak nothing of the other tenant', async () => {
    const empty = [
      `/api/v2/job_templates/?inventory__organization__name=${b.orgName}`,
      `/api/v2/job_templates/?project__organization=${b.org}`,
      `/api/v2/hosts/?inventory__name=${b.inventory.name}`,
      `/api/v2/hosts/?inventory=${b.inventory.id}`,
      `/api/v2/groups/?inventory__organization__name=${b.orgName}`,
      `/api/v2/inventory_sources/?source_project__organization=${b.org}`,
      `/api/v2/credentials/?organization__name=${b.orgName}`,
      `/api/v2/workflow_job_template_nodes/?workflow_job_template__organization=${b.org}`,
      `/api/v2/schedules/?unified_job_template=${b.template.id}`,
      `/api/v2/teams/?organization__name=${b.orgName}`,
      `/api/v2/labels/?organization=${b.org}`,
      `/api/v2/notification_templates/?organization__name=${b.orgName}`,
      `/api/v2/execution_environments/?organization=${b.org}`,
    ];
    for (const url of empty) {
      const res = await t.get(url, { as: auditorA });
      assert.ok(res.status === 200 || res.status === 403, `${url}: ${res.text}`);
      if (res.status === 200) assert.equal(res.body.count, 0, `${url} shows ${res.text}`);
    }
    // The same filters find A's own objects, so the filters themselves work.
    assert.equal((await t.get(`/api/v2/job_templates/?inventory__organization__name=${a.orgName}`, { as: auditorA })).body.count, 1);
    assert.equal((await t.get(`/api/v2/hosts/?inventory__name=${a.inventory.name}`, { as: auditorA })).body.count, 1);
  });

  it("writes setting a related field to B's object are refused with the field named; A's own are taken", async () => {
    const refusals: [string, Record<string, unknown>, string][] = [
      [`/api/v2/job_templates/${a.template.id}/`, { inventory: b.inventory.id }, 'inventory'],
      [`/api/v2/job_templates/${a.template.id}/`, { project: b.project.id }, 'project'],
      [`/api/v2/job_templates/${a.template.id}/`, { execution_environment: b.environment }, 'execution_environment'],
      [`/api/v2/inventory_sources/${a.source.id}/`, { credential: b.scm }, 'credential'],
      [`/api/v2/inventory_sources/${a.source.id}/`, { source_project: b.project.id }, 'source_project'],
      [`/api/v2/workflow_job_template_nodes/${a.node}/`, { unified_job_template: b.template.id }, 'unified_job_template'],
      [`/api/v2/workflow_job_templates/${a.workflow.id}/`, { inventory: b.inventory.id }, 'inventory'],
      [`/api/v2/schedules/${a.schedule}/`, { inventory: b.inventory.id }, 'inventory'],
      [`/api/v2/service_catalog_items/${a.item}/`, { job_template: b.template.id }, 'job_template'],
      [`/api/v2/projects/${a.project.id}/`, { credential: b.scm }, 'credential'],
      [`/api/v2/projects/${a.project.id}/`, { default_environment: b.environment }, 'default_environment'],
      [`/api/v2/inventories/${a.inventory.id}/`, { organization: b.org }, 'organization'],
      [`/api/v2/job_templates/${a.template.id}/`, { webhook_service: 'github', webhook_credential: b.machine }, 'webhook_credential'],
      [`/api/v2/organizations/${a.org}/`, { default_environment: b.environment }, 'default_environment'],
    ];
    for (const [url, body, field] of refusals) {
      const before = (await t.get(url)).body;
      const res = await t.patch(url, body, { as: both });
      assert.equal(res.status, 400, `${url} ${JSON.stringify(body)}: ${res.text}`);
      assert.match(String(res.body[field]), REFUSED_WRITE, `${url}: ${res.text}`);
      const now = (await t.get(url)).body;
      assert.equal(now[field], before[field], `${url}: ${field} is unchanged`);
    }
    const creations: [string, Record<string, unknown>, string, 'superuser'?][] = [
      ['/api/v2/job_templates/', { name: unique('jt'), project: a.project.id, inventory: b.inventory.id, playbook: 'hello.yml' }, 'inventory'],
      ['/api/v2/workflow_job_template_nodes/', { workflow_job_template: a.workflow.id, unified_job_template: b.template.id }, 'unified_job_template'],
      ['/api/v2/schedules/', { name: unique('s'), unified_job_template: a.template.id, rrule: 'DTSTART:20300101T000000Z RRULE:FREQ=DAILY', inventory: b.inventory.id }, 'inventory'],
      ['/api/v2/service_catalog_items/', { name: unique('item'), organization: a.org, job_template: b.template.id }, 'job_template'],
      ['/api/v2/inventory_sources/', { name: unique('src'), inventory: a.inventory.id, source: 'scm', source_project: b.project.id, source_path: 'hosts.ini' }, 'source_project'],
      // A global execution environment (only a superuser makes one) would share the tenant's registry credential with everyone.
      ['/api/v2/execution_environments/', { name: unique('ee'), image: 'quay.io/x/y:1', credential: b.machine }, 'credential', 'superuser'],
    ];
    for (const [url, body, field, who] of creations) {
      const count = (await t.get(`${url}?page_size=1`)).body.count;
      const res = await t.post(url, body, who === 'superuser' ? {} : { as: both });
      assert.equal(res.status, 400, `${url} ${JSON.stringify(body)}: ${res.text}`);
      assert.match(String(res.body[field]), REFUSED_WRITE, `${url}: ${res.text}`);
      assert.equal((await t.get(`${url}?page_size=1`)).body.count, count, `${url}: nothing created`);
    }
    // Within A: the same writes succeed.
    const taken = await t.patch(`/api/v2/job_templates/${a.template.id}/`, { inventory: a.spareInventory.id }, { as: both });
    assert.equal(taken.status, 200, taken.text);
    assert.equal((await t.patch(`/api/v2/job_templates/${a.template.id}/`, { inventory: a.inventory.id }, { as: both })).status, 200);
    assert.equal((await t.patch(`/api/v2/schedules/${a.schedule}/`, { inventory: a.spareInventory.id }, { as: both })).status, 200);
    assert.equal((await t.patch(`/api/v2/inventory_sources/${a.source.id}/`, { credential: a.scm }, { as: both })).status, 200);
    const node = await t.post('/api/v2/workflow_job_template_nodes/', { workflow_job_template: a.workflow.id, unified_job_template: a.template.id }, { as: both });
    assert.equal(node.status, 201, node.text);
  });

  it("attaching B's object to a related list of A's is refused; A's own attach", async () => {
    const refusals: [string, number][] = [
      [`/api/v2/job_templates/${a.template.id}/credentials/`, b.machine],
      [`/api/v2/job_templates/${a.template.id}/labels/`, b.label],
      [`/api/v2/job_templates/${a.template.id}/notification_templates_success/`, b.notification],
      [`/api/v2/workflow_job_templates/${a.workflow.id}/labels/`, b.label],
      [`/api/v2/workflow_job_templates/${a.workflow.id}/notification_templates_error/`, b.notification],
      [`/api/v2/workflow_job_template_nodes/${a.node}/credentials/`, b.machine],
      [`/api/v2/workflow_job_template_nodes/${a.node}/labels/`, b.label],
      [`/api/v2/schedules/${a.schedule}/credentials/`, b.machine],
      [`/api/v2/schedules/${a.schedule}/labels/`, b.label],
      [`/api/v2/inventories/${a.inventory.id}/labels/`, b.label],
      [`/api/v2/projects/${a.project.id}/notification_templates_started/`, b.notification],
      [`/api/v2/inventory_sources/${a.source.id}/notification_templates_success/`, b.notification],
      [`/api/v2/organizations/${a.org}/notification_templates_error/`, b.notification],
      [`/api/v2/service_catalog_items/${a.item}/notification_templates_requested/`, b.notification],
      [`/api/v2/groups/${a.group.id}/hosts/`, b.host.id],
      [`/api/v2/teams/${b.team.id}/roles/`, (await t.get(`/api/v2/job_templates/${a.template.id}/`)).body.summary_fields.object_roles.execute_role.id],
      [`/api/v2/roles/${(await t.get(`/api/v2/inventories/${a.inventory.id}/`)).body.summary_fields.object_roles.use_role.id}/teams/`, b.team.id],
    ];
    const galaxyType = (await t.get('/api/v2/credential_types/?namespace=galaxy_api_token')).body.results[0].id;
    const galaxy = await created('/api/v2/credentials/', { name: unique('galaxy'), organization: b.org, credential_type: galaxyType, inputs: { url: 'https://galaxy.example.com/' } });
    refusals.push([`/api/v2/organizations/${a.org}/galaxy_credentials/`, galaxy.id]);
    for (const [url, id] of refusals) {
      const count = (await t.get(url)).body.count;
      const res = await t.post(url, { id }, { as: both });
      // Hosts and groups link only within their inventory (as AWX, 400), which keeps them within a tenant already.
      const within = url.startsWith('/api/v2/groups/');
      assert.equal(res.status, within ? 400 : 403, `${url} ${id}: ${res.text}`);
      assert.match(res.body.detail, within ? /different inventories/ : /another tenant|a role on an object of a tenant/, `${url}: ${res.text}`);
      assert.equal((await t.get(url)).body.count, count, `${url}: nothing attached`);
    }
    // The labels a launch configuration creates by name are refused in another tenant's organization too.
    const named = await t.post(`/api/v2/schedules/${a.schedule}/labels/`, { name: unique('lbl'), organization: b.org }, { as: both });
    assert.equal(named.status, 403, named.text);
    assert.match(named.body.detail, /another tenant/);
    // Within A: the same attaches succeed.
    const oks: [string, number][] = [
      [`/api/v2/job_templates/${a.template.id}/credentials/`, a.machine],
      [`/api/v2/job_templates/${a.template.id}/labels/`, a.label],
      [`/api/v2/job_templates/${a.template.id}/notification_templates_success/`, a.notification],
      [`/api/v2/workflow_job_template_nodes/${a.node}/credentials/`, a.machine],
      [`/api/v2/schedules/${a.schedule}/labels/`, a.label],
      [`/api/v2/teams/${a.team.id}/roles/`, (await t.get(`/api/v2/job_templates/${a.template.id}/`)).body.summary_fields.object_roles.execute_role.id],
      [`/api/v2/users/${adminB.id}/roles/`, (await t.get(`/api/v2/job_templates/${a.template.id}/`)).body.summary_fields.object_roles.read_role.id],
    ];
    for (const [url, id] of oks) {
      const res = await t.post(url, { id }, { as: both });
      assert.equal(res.status, 204, `${url} ${id}: ${res.text}`);
    }
    // A user of another tenant may be given a role (users belong to no organization, as in AWX); take it back.
    const read = (await t.get(`/api/v2/job_templates/${a.template.id}/`)).body.summary_fields.object_roles.read_role.id;
    assert.equal((await t.post(`/api/v2/users/${adminB.id}/roles/`, { id: read, disassociate: true }, { as: both })).status, 204);
    assert.equal((await t.post(`/api/v2/job_templates/${a.template.id}/credentials/`, { id: a.machine, disassociate: true }, { as: both })).status, 204);
  });

  it("neither B's admin nor a plain member of A reaches across: RBAC refuses before the boundary is asked", async () => {
    const member = await newUser(t, { member: a.org });
    const attempts: [User, string, string, Record<string, unknown>][] = [
      [adminB, 'POST', `/api/v2/job_templates/${b.template.id}/credentials/`, { id: a.machine }],
      [adminB, 'PATCH', `/api/v2/job_templates/${b.template.id}/`, { inventory: a.inventory.id }],
      [adminB, 'POST', `/api/v2/job_templates/${a.template.id}/launch/`, { inventory: b.inventory.id }],
      [adminB, 'POST', `/api/v2/teams/${b.team.id}/roles/`, { id: (await t.get(`/api/v2/inventories/${a.inventory.id}/`)).body.summary_fields.object_roles.use_role.id }],
      [member, 'PATCH', `/api/v2/job_templates/${a.template.id}/`, { inventory: b.inventory.id }],
      [member, 'POST', `/api/v2/job_templates/${a.template.id}/launch/`, { inventory: b.inventory.id }],
    ];
    for (const [who, method, url, body] of attempts) {
      const res = await t.request(method, url, { as: who, body });
      assert.ok([403, 404].includes(res.status), `${who.username} ${method} ${url}: ${res.text}`);
    }
    assert.equal((await t.get(`/api/v2/job_templates/${b.template.id}/`)).body.inventory, b.inventory.id);
    assert.equal((await t.get(`/api/v2/job_templates/${b.template.id}/credentials/`)).body.count, 0);
  });

  it("an event rule of A cannot launch B's template", async () => {
    const path = unique('rule');
    const res = await t.post('/api/v2/event_rules/', {
      name: path, organization: a.org, webhook_path: path, conditions: [{ jinja2_expression: 'true', description: 'all' }],
      actions: [{ action_type: 'launch_job_template', target_id: b.template.id }],
    }, { as: both });
    assert.equal(res.status, 400, res.text);
  });

  it("launching A's templates with B's inventory, credential, label or environment is refused with the prompt named", async () => {
    const launch = `/api/v2/job_templates/${a.template.id}/launch/`;
    const runs = async () => (await t.get(`/api/v2/job_templates/${a.template.id}/jobs/`)).body.count;
    const count = await runs();
    const prompts: [Record<string, unknown>, string, RegExp][] = [
      [{ inventory: b.inventory.id }, 'inventory', /Inventory belongs to another tenant/],
      [{ credentials: [b.machine] }, 'credentials', /Credential belongs to another tenant/],
      [{ labels: [b.label] }, 'labels', /Label belongs to another tenant/],
      [{ execution_environment: b.environment }, 'execution_environment', /Execution Environment belongs to another tenant/],
    ];
    for (const [body, field, message] of prompts) {
      const res = await t.post(launch, body, { as: both });
      assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.text}`);
      assert.match(String(res.body[field]), message, res.text);
    }
    const workflow = await t.post(`/api/v2/workflow_job_templates/${a.workflow.id}/launch/`, { inventory: b.inventory.id }, { as: both });
    assert.equal(workflow.status, 400, workflow.text);
    assert.match(String(workflow.body.inventory), /another tenant/);
    const commands = async () => (await t.get('/api/v2/ad_hoc_commands/')).body.count;
    const commandCount = await commands();
    const command = { inventory: a.inventory.id, module_name: 'command', module_args: 'true' };
    for (const [body, field] of [[{ credential: b.machine }, 'credential'], [{ credential: a.machine, execution_environment: b.environment }, 'execution_environment']] as const) {
      const res = await t.post('/api/v2/ad_hoc_commands/', { ...command, ...body }, { as: both });
      assert.equal(res.status, 400, res.text);
      assert.match(String(res.body[field]), /belongs to another tenant/, res.text);
    }
    assert.equal(await commands(), commandCount, 'no command started');
    assert.equal(await runs(), count, 'nothing launched');
    const ownCommand = await t.post('/api/v2/ad_hoc_commands/', { ...command, credential: a.machine }, { as: both });
    assert.equal(ownCommand.status, 201, ownCommand.text);
    await t.post(`/api/v2/ad_hoc_commands/${ownCommand.body.id}/cancel/`, {});
    // A's own objects launch.
    const ours = await t.post(launch, { inventory: a.spareInventory.id, credentials: [a.machine], labels: [a.label] }, { as: both });
    assert.equal(ours.status, 201, ours.text);
    assert.equal(ours.body.inventory, a.spareInventory.id);
    assert.equal(await runs(), count + 1);
    await t.post(`/api/v2/jobs/${ours.body.id}/cancel/`, {});
  });

  it('a due schedule whose saved inventory has since become another tenant\'s is not launched, and says why', async () => {
    const { template } = await scheduledTemplate(t, { ask_inventory_on_launch: true });
    const elsewhere = (await newOrg(t)).id;
    const inventory = (await newInventory(t, elsewhere, { local: false })).id;
    // Saved while neither organization was a tenant (as AWX lets organizations mix), then one became one.
    const schedule = await newSchedule(t, template.id, { inventory });
    await makeTenant(t, elsewhere);
    await t.db.query("UPDATE schedules SET next_run = now() - interval '1 second' WHERE id = $1", [schedule.id]);
    await launchDueSchedules(t.services);
    const skipped = await eventually(async () => {
      const [row] = await t.db.query<{ changes: Record<string, unknown> }>(
        "SELECT changes FROM activity_stream WHERE object1 = 'schedule' AND object1_id = $1 AND changes ? 'skipped_launch'", [schedule.id],
      );
      return row ?? null;
    }, 15_000, 'the refusal recorded');
    assert.match(JSON.stringify(skipped.changes), /Inventory belongs to another tenant/);
    assert.equal((await t.get(`/api/v2/job_templates/${template.id}/jobs/`)).body.count, 0);
  });

  it('organizations that are no tenant mix as AWX lets them, but take nothing of a tenant', async () => {
    const x = (await newOrg(t)).id;
    const y = (await newOrg(t)).id;
    const yInventory = await newInventory(t, y);
    const mixed = await t.post('/api/v2/workflow_job_templates/', { name: unique('wf'), organization: x, inventory: yInventory.id });
    assert.equal(mixed.status, 201, mixed.text);
    const taking = await t.post('/api/v2/workflow_job_templates/', { name: unique('wf'), organization: x, inventory: a.inventory.id });
    assert.equal(taking.status, 400, taking.text);
    assert.match(String(taking.body.inventory), /another tenant/);
    // A global object (no organization) may be used by a tenant: a global execution environment.
    const global = await created('/api/v2/execution_environments/', { name: unique('global-ee'), image: 'quay.io/acme/g:1' });
    const res = await t.patch(`/api/v2/job_templates/${a.template.id}/`, { execution_environment: global.id }, { as: both });
    assert.equal(res.status, 200, res.text);
  });
});
