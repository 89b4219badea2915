import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { waitForRun } from './helpers/jobs.ts';
import { createTestApp, grant, grantTeam, newOrg, newTeam, newUser, type TestApp, type User } from './helpers/app.ts';

const PLAY = '- hosts: all\n  gather_facts: false\n  tasks: []\n';
const HANDLERS = `- hosts: all
  gather_facts: false
  tasks:
    - command: /bin/true
      changed_when: true
      notify: marker
    - fail:
        msg: boom
  handlers:
    - name: marker
      debug:
        msg: handler ran
`;
const ids = (body: any) => body.results.map((r: any) => r.id);

describe('AWX endpoints: access lists, sub-lists and fields', () => {
  let t: TestApp;
  let org: any;
  let other: any;
  let project: any;
  let inventory: any;
  let orgAdmin: User;
  let member: User;
  let teamMember: User;
  let outsider: User;
  let otherAdmin: User;
  let team: any;
  let galaxyType: number;
  let tokenTypes: Record<string, number>;

  before(async () => {
    t = await createTestApp();
    org = await newOrg(t, { name: 'Acme' });
    other = await newOrg(t, { name: 'Other' });
    orgAdmin = await newUser(t, { username: 'acme-admin', admin: org });
    member = await newUser(t, { username: 'acme-member', member: org });
    teamMember = await newUser(t, { username: 'acme-team-member', member: org });
    outsider = await newUser(t, { username: 'outsider' });
    otherAdmin = await newUser(t, { username: 'other-admin', admin: other });
    team = await newTeam(t, org, { name: 'Ops', members: [teamMember] });
    await mkdir(path.join(t.env.projectsRoot, 'plays'), { recursive: true });
    await writeFile(path.join(t.env.projectsRoot, 'plays', 'site.yml'), PLAY);
    await writeFile(path.join(t.env.projectsRoot, 'plays', 'handlers.yml'), HANDLERS);
    project = (await t.post('/api/v2/projects/', { name: 'Plays', organization: org.id, local_path: 'plays' })).body;
    inventory = (await t.post('/api/v2/inventories/', { name: 'Servers', organization: org.id })).body;
    await grant(t, member, project, 'use_role');
    await grantTeam(t, team, project, 'update_role');
    galaxyType = (await t.get('/api/v2/credential_types/?namespace=galaxy_api_token')).body.results[0].id;
    tokenTypes = {};
    for (const service of ['github', 'gitlab']) tokenTypes[service] = (await t.get(`/api/v2/credential_types/?namespace=${service}_token`)).body.results[0].id;
  });
  after(() => t.close());

  describe('access_list', () => {
    it('lists who holds a role on the project, directly, through a team or through the organization', async () => {
      assert.equal(project.related.access_list, `/api/v2/projects/${project.id}/access_list/`);
      const res = await t.get(`/api/v2/projects/${project.id}/access_list/`);
      assert.equal(res.status, 200, res.text);
      const byName = new Map(res.body.results.map((u: any) => [u.username, u]));
      assert.deepEqual([...byName.keys()].sort(), ['acme-admin', 'acme-member', 'acme-team-member', 'admin'].sort());
      assert.deepEqual(res.body.results.map((u: any) => u.username), [...byName.keys()].sort(), 'ordered by username');

      const direct = (byName.get('acme-member') as any).summary_fields;
      assert.equal(direct.user_capabilities, undefined);
      assert.equal(direct.direct_access.length, 1);
      assert.equal(direct.direct_access[0].role.name, 'Use');
      assert.equal(direct.direct_access[0].role.resource_type, 'project');
      assert.equal(direct.direct_access[0].role.resource_name, 'Plays');
      assert.deepEqual(direct.direct_access[0].role.related, { project: `/api/v2/projects/${project.id}/` });
      assert.deepEqual(direct.direct_access[0].role.user_capabilities, { unattach: true });
      assert.deepEqual(direct.direct_access[0].descendant_roles.sort(), ['read_role', 'use_role']);
      assert.deepEqual(direct.indirect_access, []);

      const viaTeam = (byName.get('acme-team-member') as any).summary_fields.direct_access;
      assert.equal(viaTeam.length, 1);
      assert.equal(viaTeam[0].role.name, 'Update');
      assert.equal(viaTeam[0].role.team_id, team.id);
      assert.equal(viaTeam[0].role.team_name, 'Ops');
      assert.equal(viaTeam[0].role.team_organization_name, 'Acme');
      assert.deepEqual(viaTeam[0].descendant_roles.sort(), ['read_role', 'update_role']);

      const viaOrg = (byName.get('acme-admin') as any).summary_fields;
      assert.deepEqual(viaOrg.direct_access, []);
      assert.equal(viaOrg.indirect_access[0].role.resource_type, 'organization');
      assert.equal(viaOrg.indirect_access[0].role.name, 'Admin');
      assert.deepEqual(viaOrg.indirect_access[0].descendant_roles.sort(), ['admin_role', 'read_role', 'update_role', 'use_role']);

      const superuser = (byName.get('admin') as any).summary_fields.indirect_access;
      assert.deepEqual(superuser.map((e: any) => [e.role.id, e.role.name]), [[null, 'System Administrator']]);
      assert.deepEqual(superuser[0].role.user_capabilities, { unattach: false });
    });

    it('says whether the caller may take each role away', async () => {
      const res = await t.get(`/api/v2/projects/${project.id}/access_list/?username=acme-member`, { as: member });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body.results[0].summary_fields.direct_access[0].role.user_capabilities, { unattach: false });
      const byAdmin = await t.get(`/api/v2/projects/${project.id}/access_list/?username=acme-member`, { as: orgAdmin });
      assert.deepEqual(byAdmin.body.results[0].summary_fields.direct_access[0].role.user_capabilities, { unattach: true });
    });

    it('is there for every resource with roles and for users', async () => {
      const credential = (await t.post('/api/v2/credentials/', { name: 'g', organization: org.id, credential_type: galaxyType, inputs: { url: 'https://galaxy.example.com/' } })).body;
      for (const url of [`/api/v2/organizations/${org.id}/`, `/api/v2/teams/${team.id}/`, `/api/v2/inventories/${inventory.id}/`, `/api/v2/credentials/${credential.id}/`]) {
        const res = await t.get(`${url}access_list/`);
        assert.equal(res.status, 200, `${url}: ${res.text}`);
        assert.ok(res.body.results.some((u: any) => u.username === 'acme-admin'), url);
      }
      const teamList = await t.get(`/api/v2/teams/${team.id}/access_list/?username=acme-team-member`);
      assert.equal(teamList.body.results[0].summary_fields.direct_access[0].role.name, 'Member');
      const users = await t.get(`/api/v2/users/${member.id}/access_list/`);
      assert.equal(users.status, 200);
      assert.deepEqual(users.body.results.map((u: any) => u.username), ['admin']);
    });

    it('is refused to those who cannot see the object', async () => {
      assert.equal((await t.get(`/api/v2/projects/${project.id}/access_list/`, { as: outsider })).status, 403);
      assert.equal((await t.get(`/api/v2/projects/${project.id}/access_list/`, { as: otherAdmin })).status, 403);
      assert.equal((await t.get(`/api/v2/organizations/${org.id}/access_list/`, { as: otherAdmin })).status, 403);
      assert.equal((await t.get('/api/v2/projects/99999/access_list/')).status, 404);
      assert.equal((await t.post(`/api/v2/projects/${project.id}/access_list/`, {})).status, 405);
    });
  });

  describe('organization sub-lists', () => {
    it('lists what the organization owns, and creates projects there', async () => {
      assert.deepEqual(ids((await t.get(`/api/v2/organizations/${org.id}/projects/`)).body), [project.id]);
      assert.deepEqual(ids((await t.get(`/api/v2/organizations/${org.id}/inventories/`)).body), [inventory.id]);
      for (const list of ['job_templates', 'credentials', 'execution_environments', 'applications']) {
        const res = await t.get(`/api/v2/organizations/${org.id}/${list}/`);
        assert.equal(res.status, 200, `${list}: ${res.text}`);
        assert.equal(org.related?.[list] ?? (await t.get(`/api/v2/organizations/${org.id}/`)).body.related[list], `/api/v2/organizations/${org.id}/${list}/`);
      }
      const created = await t.post(`/api/v2/organizations/${org.id}/execution_environments/`, { name: 'org-ee', image: 'quay.io/acme/ee:1', organization: other.id });
      assert.equal(created.status, 201, created.text);
      assert.equal(created.body.organization, org.id);
      assert.deepEqual(ids((await t.get(`/api/v2/organizations/${org.id}/execution_environments/`)).body), [created.body.id]);
      assert.equal((await t.get(`/api/v2/organizations/${org.id}/projects/`, { as: otherAdmin })).status, 403);
      assert.equal((await t.post(`/api/v2/organizations/${org.id}/execution_environments/`, { name: 'sneaky', image: 'quay.io/x/y:1' }, { as: otherAdmin })).status, 403);
    });

    it('keeps Galaxy credentials in the order they were attached; only its admins attach Galaxy credentials they can read', async () => {
      const galaxy = async (name: string, owner = org.id) =>
        (await t.post('/api/v2/credentials/', { name, organization: owner, credential_type: galaxyType, inputs: { url: `https://${name}.example.com/` } })).body.id as number;
      const [b, a, c] = [await galaxy('b-hub'), await galaxy('a-hub'), await galaxy('c-hub')];
      const url = `/api/v2/organizations/${org.id}/galaxy_credentials/`;
      for (const id of [b, a, c]) assert.equal((await t.post(url, { id }, { as: orgAdmin })).status, 204);
      assert.deepEqual(ids((await t.get(url)).body), [b, a, c]);
      assert.deepEqual(ids((await t.get(`${url}?order_by=name`)).body), [a, b, c]);
      assert.equal((await t.post(url, { id: a, disassociate: true }, { as: orgAdmin })).status, 204);
      assert.equal((await t.post(url, { id: a }, { as: orgAdmin })).status, 204);
      assert.deepEqual(ids((await t.get(url)).body), [b, c, a]);

      const github = (await t.post('/api/v2/credentials/', { name: 'gh', organization: org.id, credential_type: tokenTypes.github, inputs: { token: 'x' } })).body.id;
      const wrong = await t.post(url, { id: github }, { as: orgAdmin });
      assert.equal(wrong.status, 400);
      assert.match(wrong.body.msg, /Credential must be a Galaxy credential, not GitHub/);

      const foreign = await galaxy('foreign-hub', other.id);
      assert.equal((await t.post(url, { id: foreign }, { as: orgAdmin })).status, 403, 'a credential the admin cannot read');
      assert.equal((await t.post(url, { id: c, disassociate: true }, { as: member })).status, 403);
      assert.equal((await t.post(url, { id: foreign }, { as: otherAdmin })).status, 403);
      assert.equal((await t.get(url, { as: outsider })).status, 403);
      assert.deepEqual(ids((await t.get(url)).body), [b, c, a], 'nothing changed');
      const stream = (await t.get(`/api/v2/organizations/${org.id}/activity_stream/?operation=associate`)).body.results;
      assert.ok(stream.some((e: any) => e.object2 === 'credential' && e.object_association === 'galaxy_credentials'), JSON.stringify(stream[0]));
    });

    it('stores a default execution environment the admin can see', async () => {
      const global = (await t.post('/api/v2/execution_environments/', { name: 'global-ee', image: 'quay.io/acme/global:1' })).body.id;
      const foreign = (await t.post('/api/v2/execution_environments/', { name: 'other-ee', image: 'quay.io/other/ee:1', organization: other.id })).body.id;
      const res = await t.patch(`/api/v2/organizations/${org.id}/`, { default_environment: global }, { as: orgAdmin });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.default_environment, global);
      assert.equal(res.body.summary_fields.default_environment.name, 'global-ee');
      assert.equal((await t.patch(`/api/v2/organizations/${org.id}/`, { default_environment: foreign }, { as: orgAdmin })).status, 403);
      assert.equal((await t.patch(`/api/v2/organizations/${org.id}/`, { default_environment: global }, { as: member })).status, 403);
      assert.equal((await t.patch(`/api/v2/organizations/${org.id}/`, { default_environment: 99999 })).status, 400);
      assert.equal((await t.get(`/api/v2/organizations/${org.id}/`)).body.default_environment, global);
    });
  });

  describe('user and team sub-lists', () => {
    it('lists the projects and credentials a user or team reads, as far as the caller sees them', async () => {
      assert.deepEqual(ids((await t.get(`/api/v2/users/${member.id}/projects/`)).body), [project.id]);
      assert.deepEqual(ids((await t.get(`/api/v2/users/${teamMember.id}/projects/`)).body), [project.id]);
      assert.deepEqual(ids((await t.get(`/api/v2/users/${outsider.id}/projects/`)).body), []);
      assert.deepEqual(ids((await t.get(`/api/v2/teams/${team.id}/projects/`)).body), [project.id]);
      assert.equal((await t.get(`/api/v2/users/${orgAdmin.id}/credentials/`)).body.count, (await t.get(`/api/v2/organizations/${org.id}/credentials/`)).body.count);
      assert.equal((await t.get(`/api/v2/teams/${team.id}/credentials/`)).body.count, 0);
      // The caller sees only what he may: the member sees the project, but not the admin's credentials.
      assert.deepEqual(ids((await t.get(`/api/v2/users/${member.id}/projects/`, { as: member })).body), [project.id]);
      assert.equal((await t.get(`/api/v2/users/${member.id}/credentials/`, { as: member })).body.count, 0);
      // Another organization's admin sees the team (ORG_ADMINS_CAN_SEE_ALL_USERS) but none of its projects.
      assert.equal((await t.get(`/api/v2/teams/${team.id}/projects/`, { as: otherAdmin })).body.count, 0);
      assert.equal((await t.get(`/api/v2/users/${member.id}/projects/`, { as: otherAdmin })).body.count, 0);
      assert.equal((await t.get(`/api/v2/teams/${team.id}/projects/`, { as: outsider })).status, 403);
    });
  });

  describe('inventory, host and group sub-lists', () => {
    it('lists an inventory\'s job templates and labels', async () => {
      const jt = await t.post('/api/v2/job_templates/', { name: 'deploy', project: project.id, inventory: inventory.id, playbook: 'site.yml' });
      assert.equal(jt.status, 201, jt.text);
      assert.deepEqual(ids((await t.get(`/api/v2/inventories/${inventory.id}/job_templates/`)).body), [jt.body.id]);
      const label = await t.post(`/api/v2/inventories/${inventory.id}/labels/`, { name: 'prod' }, { as: orgAdmin });
      assert.equal(label.status, 201, label.text);
      assert.deepEqual((await t.get(`/api/v2/inventories/${inventory.id}/labels/`)).body.results.map((l: any) => l.name), ['prod']);
      assert.equal((await t.post(`/api/v2/inventories/${inventory.id}/labels/`, { name: 'x' }, { as: member })).status, 403);
      assert.equal((await t.post(`/api/v2/inventories/${inventory.id}/labels/`, { id: label.body.id, disassociate: true }, { as: otherAdmin })).status, 403);
      assert.equal((await t.post(`/api/v2/inventories/${inventory.id}/labels/`, { id: label.body.id, disassociate: true }, { as: orgAdmin })).status, 204);
      assert.equal((await t.get(`/api/v2/inventories/${inventory.id}/labels/`)).body.count, 0);
    });

    it('lists the job events, host summaries and inventory sources of hosts and groups', async () => {
      const host = (await t.post(`/api/v2/inventories/${inventory.id}/hosts/`, { name: 'web1' })).body;
      const group = (await t.post(`/api/v2/inventories/${inventory.id}/groups/`, { name: 'web' })).body;
      assert.equal((await t.post(`/api/v2/groups/${group.id}/hosts/`, { id: host.id })).status, 204);
      for (const [kind, object] of [['hosts', host], ['groups', group]] as const) {
        for (const list of ['job_events', 'job_host_summaries', 'inventory_sources']) {
          const url = `/api/v2/${kind}/${object.id}/${list}/`;
          assert.equal((await t.get(`/api/v2/${kind}/${object.id}/`)).body.related[list], url);
          const res = await t.get(url);
          assert.equal(res.status, 200, `${url}: ${res.text}`);
          assert.equal(res.body.count, 0);
          assert.equal((await t.get(url, { as: otherAdmin })).status, 403);
        }
      }
    });
  });

  describe('fields', () => {
    it('stores force_handlers and the webhook service and credential of a job template', async () => {
      const gh = (await t.post('/api/v2/credentials/', { name: 'gh-token', organization: org.id, credential_type: tokenTypes.github, inputs: { token: 'secret-token' } })).body.id;
      const gl = (await t.post('/api/v2/credentials/', { name: 'gl-token', organization: org.id, credential_type: tokenTypes.gitlab, inputs: { token: 'secret-token' } })).body.id;
      const body = { name: 'hooked', project: project.id, inventory: inventory.id, playbook: 'site.yml' };
      const res = await t.post('/api/v2/job_templates/', { ...body, force_handlers: true, webhook_service: 'github', webhook_credential: gh });
      assert.equal(res.status, 201, res.text);
      assert.equal(res.body.force_handlers, true);
      assert.equal(res.body.webhook_service, 'github');
      assert.equal(res.body.webhook_credential, gh);
      assert.equal(res.body.related.webhook_credential, `/api/v2/credentials/${gh}/`);
      assert.ok(!res.text.includes('secret-token'));
      const id = res.body.id;
      const mismatch = await t.patch(`/api/v2/job_templates/${id}/`, { webhook_credential: gl });
      assert.equal(mismatch.status, 400);
      assert.deepEqual(mismatch.body, { webhook_credential: ['Must match the selected webhook service.'] });
      const notToken = await t.patch(`/api/v2/job_templates/${id}/`, { webhook_credential: (await t.get('/api/v2/credentials/?name=g')).body.results[0].id });
      assert.deepEqual(notToken.body, { webhook_credential: ['Must be a Personal Access Token.'] });
      assert.equal((await t.patch(`/api/v2/job_templates/${id}/`, { webhook_service: 'svn' })).status, 400);
      assert.equal((await t.patch(`/api/v2/job_templates/${id}/`, { webhook_service: 'gitlab', webhook_credential: gl })).status, 200);
      assert.equal((await t.patch(`/api/v2/job_templates/${id}/`, { webhook_service: 'bitbucket_dc', webhook_credential: null })).status, 200);
      const options = await t.request('OPTIONS', '/api/v2/job_templates/');
      assert.deepEqual(options.body.actions.POST.webhook_service.choices.map((c: any) => c[0]), ['', 'github', 'gitlab', 'bitbucket_dc', 'gitea', 'azure_devops']);

      // A credential the template admin may not use is refused, and nothing changes.
      const jtAdmin = await newUser(t, { username: 'jt-admin' });
      await grant(t, jtAdmin, `/api/v2/job_templates/${id}/`, 'admin_role');
      const refused = await t.patch(`/api/v2/job_templates/${id}/`, { webhook_service: 'github', webhook_credential: gh }, { as: jtAdmin });
      assert.equal(refused.status, 403, refused.text);
      assert.equal((await t.get(`/api/v2/job_templates/${id}/`)).body.webhook_service, 'bitbucket_dc');
    });

    it('passes force_handlers to the job and to ansible-playbook; hosts and groups list what the job recorded', async () => {
      const local = (await t.post('/api/v2/inventories/', { name: 'Local', organization: org.id, variables: 'ansible_connection: local\nansible_python_interpreter: /usr/bin/python3' })).body;
      const host = (await t.post(`/api/v2/inventories/${local.id}/hosts/`, { name: 'h1' })).body;
      const group = (await t.post(`/api/v2/inventories/${local.id}/groups/`, { name: 'all-of-them' })).body;
      await t.post(`/api/v2/groups/${group.id}/hosts/`, { id: host.id });
      const jt = (await t.post('/api/v2/job_templates/', { name: 'handlers', project: project.id, inventory: local.id, playbook: 'handlers.yml', force_handlers: true })).body;
      const launched = await t.post(`/api/v2/job_templates/${jt.id}/launch/`, {});
      assert.equal(launched.status, 201, launched.text);
      const job = await waitForRun(t, `/api/v2/jobs/${launched.body.id}/`, 120_000);
      assert.equal(job.status, 'failed');
      assert.equal(job.force_handlers, true);
      const events = await t.db.query('SELECT event, task FROM unified_job_events WHERE unified_job_id = $1', [job.id]);
      assert.ok(events.some((e) => e.event === 'runner_on_ok' && e.task === 'marker'), 'the handler ran although a task failed');

      for (const base of [`/api/v2/hosts/${host.id}/`, `/api/v2/groups/${group.id}/`]) {
        const hostEvents = (await t.get(`${base}job_events/`)).body;
        assert.ok(hostEvents.count > 0 && hostEvents.results.every((e: any) => e.host === host.id), base);
        const summaries = (await t.get(`${base}job_host_summaries/`)).body;
        assert.deepEqual(summaries.results.map((s: any) => [s.job, s.host_name, s.failed]), [[job.id, 'h1', true]]);
      }
      // A reader of the inventory who cannot see the job sees none of its records.
      const reader = await newUser(t, { username: 'inventory-reader' });
      await grant(t, reader, local, 'read_role');
      assert.equal((await t.get(`/api/v2/jobs/${job.id}/`, { as: reader })).status, 403);
      assert.equal((await t.get(`/api/v2/hosts/${host.id}/job_events/`, { as: reader })).body.count, 0);
      assert.equal((await t.get(`/api/v2/groups/${group.id}/job_host_summaries/`, { as: reader })).body.count, 0);

      const without = (await t.post('/api/v2/job_templates/', { name: 'no-force', project: project.id, inventory: local.id, playbook: 'handlers.yml' })).body;
      const plain = await waitForRun(t, `/api/v2/jobs/${(await t.post(`/api/v2/job_templates/${without.id}/launch/`, {})).body.id}/`, 120_000);
      assert.equal(plain.force_handlers, false);
      const plainEvents = await t.db.query('SELECT event, task FROM unified_job_events WHERE unified_job_id = $1', [plain.id]);
      assert.ok(!plainEvents.some((e) => e.task === 'marker' && e.event === 'runner_on_ok'));
    });

    it('shows the instance protocol and runs a health check for superusers', async () => {
      const instance = (await t.get('/api/v2/instances/')).body.results[0];
      assert.equal(instance.protocol, '');
      assert.equal(instance.related.health_check, `/api/v2/instances/${instance.id}/health_check/`);
      const before = await t.get(instance.related.health_check);
      assert.equal(before.status, 200);
      assert.equal(before.body.hostname, instance.hostname);
      assert.equal((await t.get(instance.related.health_check, { as: member })).status, 403);
      assert.equal((await t.post(instance.related.health_check, {}, { as: member })).status, 403);
      const ran = await t.post(instance.related.health_check, {});
      assert.equal(ran.status, 200, ran.text);
      assert.equal(ran.body.msg, `Health check is running for ${instance.hostname}.`);
      const after = (await t.get(instance.related.health_check)).body;
      assert.ok(after.last_health_check >= before.body.last_health_check);
      assert.equal((await t.get(`/api/v2/instances/${instance.id}/`)).body.health_check_pending, false);
    });
  });
});
