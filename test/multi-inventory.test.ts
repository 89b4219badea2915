import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, grant, newOrg, newUser, type TestApp } from './helpers/app.ts';
import { LOCAL_VARIABLES, newHost, newInventory, newJobTemplate, newProject, type User } from './helpers/factories.ts';
import { waitForRun } from './helpers/jobs.ts';

// Each host prints its own view: a variable of its inventory's group `web`, its inventory variable,
// the groups it is in, and who is in `web`; its facts are kept in the fact cache.
const GROUPS = `- hosts: web
  gather_facts: false
  tasks:
    - debug: msg="MEMBER {{ inventory_hostname }} role={{ role }} site={{ site }} in={{ group_names | sort | join(',') }} web={{ groups['web'] | sort | join(',') }}"
    - set_fact:
        marker: "{{ inventory_hostname }}-{{ site }}"
        cacheable: true
`;

describe('job templates over several inventories', () => {
  let t: TestApp;
  let orgId: number;
  let projectId: number;
  let east: number;
  let west: number;
  let hosts: Record<string, number>;
  let plain: User;
  let otherAdmin: User;
  let otherInventory: number;

  const group = async (inventory: number, name: string, variables: Record<string, unknown>, members: number[]) => {
    const made = await t.post('/api/v2/groups/', { name, inventory, variables: JSON.stringify(variables) });
    assert.equal(made.status, 201, made.text);
    for (const id of members) assert.equal((await t.post(`/api/v2/groups/${made.body.id}/hosts/`, { id })).status, 204);
    return made.body.id as number;
  };
  const jobCount = async () => (await t.get('/api/v2/jobs/')).body.count as number;
  const cancel = async (id: number) => {
    await t.post(`/api/v2/jobs/${id}/cancel/`);
    await waitForRun(t, `/api/v2/jobs/${id}/`);
  };

  before(async () => {
    t = await createTestApp();
    orgId = (await newOrg(t, { name: 'Ops' })).id;
    projectId = (await newProject(t, orgId, { files: { 'groups.yml': GROUPS } })).id;
    east = (await newInventory(t, orgId, { name: 'East', variables: `${LOCAL_VARIABLES}\nsite: east` })).id;
    west = (await newInventory(t, orgId, { name: 'West', variables: `${LOCAL_VARIABLES}\nsite: west` })).id;
    hosts = { e1: (await newHost(t, east, { name: 'e1' })).id, w1: (await newHost(t, west, { name: 'w1' })).id };
    // The same group name in both inventories, with its own variable; East's `web` is also in `prod`.
    const eastWeb = await group(east, 'web', { role: 'east-web' }, [hosts.e1]);
    const prod = await group(east, 'prod', {}, []);
    assert.equal((await t.post(`/api/v2/groups/${prod}/children/`, { id: eastWeb })).status, 204);
    await group(west, 'web', { role: 'west-web' }, [hosts.w1]);
    plain = await newUser(t);
    const other = await newOrg(t, { name: 'Other' });
    otherAdmin = await newUser(t, { admin: other.id });
    otherInventory = (await newInventory(t, other.id, { name: 'Theirs', hosts: ['x1'] })).id;
  });
  after(() => t.close());

  it('runs over every inventory with its groups kept apart, results and facts on each inventory\'s hosts', async () => {
    const template = await newJobTemplate(t, { project: projectId, inventory: east, playbook: 'groups.yml', use_fact_cache: true });
    const url = `/api/v2/job_templates/${template.id}/inventories/`;
    assert.equal((await t.post(url, { id: west })).status, 204);
    assert.deepEqual((await t.get(url)).body.results.map((i: any) => i.name), ['West']);
    assert.equal((await t.post(url, { id: east })).status, 400, 'the primary inventory is not an extra one');

    const launched = await t.post(`/api/v2/job_templates/${template.id}/launch/`, {});
    assert.equal(launched.status, 201, launched.text);
    const job = await waitForRun(t, `/api/v2/jobs/${launched.body.id}/`, 120_000);
    const stdout = (await t.get(`/api/v2/jobs/${job.id}/stdout/?format=txt`)).text;
    assert.equal(job.status, 'successful', stdout);
    assert.match(stdout, new RegExp(`MEMBER e1 role=east-web site=east in=inventory_${east},prod,web web=e1,w1`));
    assert.match(stdout, new RegExp(`MEMBER w1 role=west-web site=west in=inventory_${west},web web=e1,w1`));

    assert.deepEqual(job.summary_fields.inventories.map((i: any) => i.name), ['West']);
    assert.equal(job.inventory, east);
    assert.deepEqual((await t.get(`/api/v2/jobs/${job.id}/inventories/`)).body.results.map((i: any) => i.id), [west]);
    const summaries = (await t.get(`/api/v2/jobs/${job.id}/job_host_summaries/?order_by=host_name`)).body.results;
    assert.deepEqual(summaries.map((s: any) => [s.host_name, s.host]), [['e1', hosts.e1], ['w1', hosts.w1]]);
    for (const [name, id] of Object.entries(hosts)) {
      const host = (await t.get(`/api/v2/hosts/${id}/`)).body;
      assert.equal(host.last_job, job.id, name);
      const facts = (await t.get(`/api/v2/hosts/${id}/ansible_facts/`)).body;
      assert.equal(facts.marker, name === 'e1' ? 'e1-east' : 'w1-west');
    }
    assert.equal((await t.get(`/api/v2/inventories/${west}/`)).body.total_hosts, 1);
  });

  it('takes the inventories prompted at launch in place of the template\'s, and ignores them unless asked', async () => {
    const third = (await newInventory(t, orgId, { name: 'Third', hosts: ['t1'] })).id;
    const asking = await newJobTemplate(t, { project: projectId, inventory: east, playbook: 'groups.yml', ask_inventory_on_launch: true });
    assert.equal((await t.post(`/api/v2/job_templates/${asking.id}/inventories/`, { id: third })).status, 204);
    const prompted = await t.post(`/api/v2/job_templates/${asking.id}/launch/`, { inventories: [west, east] });
    assert.equal(prompted.status, 201, prompted.text);
    // The primary inventory named again is not an extra one.
    assert.deepEqual((await t.get(`/api/v2/jobs/${prompted.body.id}/inventories/`)).body.results.map((i: any) => i.id), [west]);
    await cancel(prompted.body.id);

    const fixed = await newJobTemplate(t, { project: projectId, inventory: east, playbook: 'groups.yml' });
    assert.equal((await t.post(`/api/v2/job_templates/${fixed.id}/inventories/`, { id: third })).status, 204);
    const ignored = await t.post(`/api/v2/job_templates/${fixed.id}/launch/`, { inventories: [west] });
    assert.equal(ignored.status, 201, ignored.text);
    assert.deepEqual(ignored.body.ignored_fields, { inventories: [west] });
    assert.deepEqual((await t.get(`/api/v2/jobs/${ignored.body.id}/inventories/`)).body.results.map((i: any) => i.id), [third]);
    await cancel(ignored.body.id);

    const before = await jobCount();
    for (const bad of ['west', [0], [2_147_483_648]]) {
      const refused = await t.post(`/api/v2/job_templates/${asking.id}/launch/`, { inventories: bad });
      assert.equal(refused.status, 400, refused.text);
      assert.ok(refused.body.inventories, refused.text);
    }
    const missing = await t.post(`/api/v2/job_templates/${asking.id}/launch/`, { inventories: [999_999] });
    assert.equal(missing.status, 400);
    assert.match(missing.body.inventories[0], /does not exist/);
    assert.equal(await jobCount(), before);
  });

  it('refuses a host name found in two inventories, at launch and changing nothing', async () => {
    const twin = (await newInventory(t, orgId, { name: 'Twin', hosts: ['e1'] })).id;
    const asking = await newJobTemplate(t, { project: projectId, inventory: east, playbook: 'groups.yml', ask_inventory_on_launch: true });
    const before = await jobCount();
    const refused = await t.post(`/api/v2/job_templates/${asking.id}/launch/`, { inventories: [twin] });
    assert.equal(refused.status, 400, refused.text);
    assert.match(refused.body.inventories[0], /Host "e1" is in more than one of the job's inventories \(East, Twin\)/);
    assert.equal((await t.post(`/api/v2/job_templates/${asking.id}/inventories/`, { id: twin })).status, 204);
    assert.equal((await t.post(`/api/v2/job_templates/${asking.id}/launch/`, {})).status, 400);
    assert.equal(await jobCount(), before);
  });

  it('refuses a plain user and another organization\'s admin attaching or prompting inventories they cannot use', async () => {
    const template = await newJobTemplate(t, { project: projectId, inventory: east, playbook: 'groups.yml', ask_inventory_on_launch: true });
    const url = `/api/v2/job_templates/${template.id}/inventories/`;
    // A plain user who may run the template and use East, but not West.
    await grant(t, plain, `/api/v2/job_templates/${template.id}/`, 'execute_role');
    await grant(t, plain, `/api/v2/inventories/${east}/`, 'use_role');
    assert.equal((await t.post(url, { id: west }, { as: plain })).status, 403, 'not the template\'s admin');
    const before = await jobCount();
    const launch = await t.post(`/api/v2/job_templates/${template.id}/launch/`, { inventories: [west] }, { as: plain });
    assert.equal(launch.status, 403, launch.text);
    assert.equal(await jobCount(), before);
    // As admin of the template, reading West is not enough to attach it.
    await grant(t, plain, `/api/v2/job_templates/${template.id}/`, 'admin_role');
    await grant(t, plain, `/api/v2/inventories/${west}/`, 'read_role');
    const attach = await t.post(url, { id: west }, { as: plain });
    assert.equal(attach.status, 403, attach.text);
    assert.equal((await t.get(url)).body.count, 0);

    // Another organization's admin: neither attaches my inventory to a template of theirs nor theirs to mine.
    const otherOrg = (await t.get('/api/v2/organizations/Other/')).body.id;
    const theirProject = (await newProject(t, otherOrg, { files: { 'groups.yml': GROUPS } })).id;
    const theirs = await newJobTemplate(t, { project: theirProject, inventory: otherInventory, playbook: 'groups.yml', ask_inventory_on_launch: true });
    assert.equal((await t.post(`/api/v2/job_templates/${theirs.id}/inventories/`, { id: west }, { as: otherAdmin })).status, 403);
    assert.equal((await t.post(url, { id: otherInventory }, { as: otherAdmin })).status, 403);
    const prompted = await t.post(`/api/v2/job_templates/${theirs.id}/launch/`, { inventories: [west] }, { as: otherAdmin });
    assert.equal(prompted.status, 403, prompted.text);
    assert.equal((await t.get(`/api/v2/job_templates/${theirs.id}/inventories/`)).body.count, 0);
    assert.equal((await t.get(url)).body.count, 0);
    assert.equal(await jobCount(), before);
  });
});
