// Related lists that create what they list, as AWX's SubListCreateAPIView and
// SubListCreateAttachDetachAPIView: the object is created and linked in one request and one
// transaction, with the target's create rules and the list's link rules; {id} still links.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { demoTemplateCopy, newInventory, newHost, newOrg, newTeam, newUser, type User } from './helpers/factories.ts';

describe('creating through related lists', () => {
  let t: TestApp;
  let org: number;
  let otherOrg: number;
  let team: number;
  let template: number;
  let project: number;
  let machine: number;
  let plain: User;
  let otherAdmin: User;
  const count = async (table: string, where: string, params: unknown[]) =>
    Number((await t.db.query<{ n: string }>(`SELECT count(*) AS n FROM ${table} WHERE ${where}`, params))[0].n);
  const names = async (url: string, key = 'name') => (await t.get(url)).body.results.map((r: Record<string, unknown>) => r[key]);

  before(async () => {
    t = await createTestApp();
    ({ org, template } = await demoTemplateCopy(t, 'Sub-list template', {}));
    project = (await t.get(`/api/v2/job_templates/${template}/`)).body.project;
    otherOrg = (await newOrg(t)).id;
    team = (await newTeam(t, org)).id;
    plain = await newUser(t, { member: org });
    otherAdmin = await newUser(t, { admin: otherOrg });
    machine = (await t.db.query<{ id: number }>("SELECT id FROM credential_types WHERE namespace = 'ssh'"))[0].id;
  });
  after(() => t.close());

  describe('users of organizations and teams', () => {
    it('creates a user who is then a member, an admin or a team member, and still links by id', async () => {
      const member = await t.post(`/api/v2/organizations/${org}/users/`, { username: 'made-member', password: 'pw-made-member' });
      assert.equal(member.status, 201, member.text);
      assert.equal(member.body.type, 'user');
      assert.equal(member.body.password, '$encrypted$');
      assert.ok((await names(`/api/v2/organizations/${org}/users/`, 'username')).includes('made-member'));
      const admin = await t.post(`/api/v2/organizations/${org}/admins/`, { username: 'made-admin', password: 'pw' });
      assert.equal(admin.status, 201, admin.text);
      assert.ok((await names(`/api/v2/organizations/${org}/admins/`, 'username')).includes('made-admin'));
      const inTeam = await t.post(`/api/v2/teams/${team}/users/`, { username: 'made-teammate', password: 'pw' });
      assert.equal(inTeam.status, 201, inTeam.text);
      assert.deepEqual(await names(`/api/v2/teams/${team}/users/`, 'username'), ['made-teammate']);
      // The new member signs in and sees the organization.
      assert.equal((await t.get(`/api/v2/organizations/${org}/`, { as: { username: 'made-member', password: 'pw-made-member' } })).status, 200);
      const linked = await newUser(t);
      assert.equal((await t.post(`/api/v2/teams/${team}/users/`, { id: linked.id })).status, 204);
      assert.equal((await t.post(`/api/v2/teams/${team}/users/`, { id: linked.id, disassociate: true })).status, 204);
      const stream = await t.get(`/api/v2/activity_stream/?operation=associate&order_by=-id&page_size=200`);
      assert.ok(stream.body.results.some((e: { object_association: string; summary_fields: { user?: { username: string }[] } }) =>
        e.object_association === 'member_role' && e.summary_fields.user?.some((u) => u.username === 'made-member')), JSON.stringify(stream.body.results.slice(0, 3)));
    });

    it('refuses a plain member and another organization\'s admin, keeping no user', async () => {
      for (const who of [plain, otherAdmin]) {
        for (const url of [`/api/v2/organizations/${org}/users/`, `/api/v2/organizations/${org}/admins/`, `/api/v2/teams/${team}/users/`]) {
          const res = await t.post(url, { username: `sneaky-${who.id}`, password: 'pw' }, { as: who });
          assert.equal(res.status, 403, `${url}: ${res.text}`);
          // A bad body teaches them nothing either.
          assert.equal((await t.post(url, { username: '' }, { as: who })).status, 403);
        }
        assert.equal(await count('users', 'username = $1', [`sneaky-${who.id}`]), 0);
      }
      // Its own organization's admin may create members there, and is_superuser is not theirs to give.
      const own = await t.post(`/api/v2/organizations/${otherOrg}/users/`, { username: 'other-member', password: 'pw' }, { as: otherAdmin });
      assert.equal(own.status, 201, own.text);
      const escalate = await t.post(`/api/v2/organizations/${otherOrg}/users/`, { username: 'other-super', password: 'pw', is_superuser: true }, { as: otherAdmin });
      assert.equal(escalate.status, 403, escalate.text);
      assert.equal(await count('users', 'username = $1', ['other-super']), 0);
    });

    it('answers a bad body with 400 and creates nothing', async () => {
      const before = await count('users', 'true', []);
      const blank = await t.post(`/api/v2/organizations/${org}/users/`, { username: '', password: 'pw' });
      assert.equal(blank.status, 400, blank.text);
      assert.ok(blank.body.username);
      assert.equal((await t.post(`/api/v2/teams/${team}/users/`, ['made-member'])).status, 400);
      assert.equal((await t.post(`/api/v2/organizations/${org}/users/`, { username: 'made-member', password: 'pw' })).status, 400);
      assert.equal((await t.post(`/api/v2/organizations/${org}/users/`, { id: 'abc' })).status, 400);
      assert.equal(await count('users', 'true', []), before);
    });
  });

  describe('credentials of users and teams', () => {
    const body = (name: string, extra: Record<string, unknown> = {}) => ({ name, credential_type: machine, inputs: { username: 'root', password: 's3cret-value' }, ...extra });

    it('gives a user\'s new credential no organization and the user as its owner', async () => {
      const made = await t.post(`/api/v2/users/${plain.id}/credentials/`, body('personal', { organization: otherOrg }));
      assert.equal(made.status, 201, made.text);
      assert.equal(made.body.organization, null);
      assert.equal(made.body.inputs.password, '$encrypted$');
      assert.deepEqual(await names(`/api/v2/credentials/${made.body.id}/owner_users/`, 'username'), [plain.username]);
      assert.ok((await names(`/api/v2/users/${plain.id}/credentials/`)).includes('personal'));
      // The user makes their own.
      const own = await t.post(`/api/v2/users/${plain.id}/credentials/`, body('own'), { as: plain });
      assert.equal(own.status, 201, own.text);
    });

    it('gives a team\'s new credential the team\'s organization, its admins as owners and its members as users', async () => {
      const made = await t.post(`/api/v2/teams/${team}/credentials/`, body('for the team', { organization: otherOrg }));
      assert.equal(made.status, 201, made.text);
      assert.equal(made.body.organization, org);
      assert.deepEqual((await t.get(`/api/v2/credentials/${made.body.id}/owner_teams/`)).body.results.map((r: { id: number }) => r.id), [team]);
      assert.ok((await names(`/api/v2/teams/${team}/credentials/`)).includes('for the team'));
    });

    it('refuses a plain user and another organization\'s admin, and bad bodies, creating nothing', async () => {
      const before = await count('credentials', 'true', []);
      assert.equal((await t.post(`/api/v2/users/${ (await newUser(t, { member: org })).id }/credentials/`, body('not mine'), { as: plain })).status, 403);
      assert.equal((await t.post(`/api/v2/teams/${team}/credentials/`, body('not ours'), { as: plain })).status, 403);
      assert.equal((await t.post(`/api/v2/teams/${team}/credentials/`, body('not ours'), { as: otherAdmin })).status, 403);
      assert.equal((await t.post(`/api/v2/users/${plain.id}/credentials/`, body('not ours'), { as: otherAdmin })).status, 403);
      const noType = await t.post(`/api/v2/users/${plain.id}/credentials/`, { name: 'typeless' });
      assert.equal(noType.status, 400, noType.text);
      assert.ok(noType.body.credential_type);
      assert.equal((await t.post(`/api/v2/teams/${team}/credentials/`, body('bad type', { credential_type: 999999 }))).status, 400);
      assert.equal(await count('credentials', 'true', []), before);
    });
  });

  describe('templates of organizations', () => {
    it('creates a job template on a project of the organization, and a workflow', async () => {
      const made = await t.post(`/api/v2/organizations/${org}/job_templates/`, { name: 'org made', project, playbook: 'hello_world.yml', ask_inventory_on_launch: true });
      assert.equal(made.status, 201, made.text);
      assert.equal(made.body.organization, org);
      assert.ok((await names(`/api/v2/organizations/${org}/job_templates/`)).includes('org made'));
      const flow = await t.post(`/api/v2/organizations/${org}/workflow_job_templates/`, { name: 'org flow', organization: otherOrg });
      assert.equal(flow.status, 201, flow.text);
      assert.equal(flow.body.organization, org);
      assert.deepEqual(await names(`/api/v2/organizations/${org}/workflow_job_templates/`), ['org flow']);
    });

    it('refuses a project of another organization, a bad body, a plain user and another organization\'s admin', async () => {
      const elsewhere = await t.post(`/api/v2/organizations/${otherOrg}/job_templates/`, { name: 'moved', project, playbook: 'hello_world.yml', ask_inventory_on_launch: true });
      assert.equal(elsewhere.status, 400, elsewhere.text);
      assert.ok(elsewhere.body.project);
      assert.equal((await t.post(`/api/v2/organizations/${org}/job_templates/`, { name: 'no project' })).status, 400);
      for (const who of [plain, otherAdmin]) {
        assert.equal((await t.post(`/api/v2/organizations/${org}/job_templates/`, { name: 'sneaky jt', project, playbook: 'hello_world.yml', ask_inventory_on_launch: true }, { as: who })).status, 403);
        assert.equal((await t.post(`/api/v2/organizations/${org}/workflow_job_templates/`, { name: 'sneaky flow' }, { as: who })).status, 403);
      }
      assert.equal(await count('unified_job_templates', "name IN ('moved', 'no project', 'sneaky jt', 'sneaky flow')", []), 0);
    });
  });

  describe('groups of hosts', () => {
    it('creates a group of the host\'s inventory holding the host; another inventory\'s is refused and kept nowhere', async () => {
      const inventory = await newInventory(t, org);
      const host = await newHost(t, inventory);
      const made = await t.post(`/api/v2/hosts/${host.id}/groups/`, { name: 'made-group' });
      assert.equal(made.status, 201, made.text);
      assert.equal(made.body.inventory, inventory.id);
      assert.deepEqual(await names(`/api/v2/groups/${made.body.id}/hosts/`), [host.name]);
      const other = await newInventory(t, org);
      const refused = await t.post(`/api/v2/hosts/${host.id}/groups/`, { name: 'elsewhere', inventory: other.id });
      assert.equal(refused.status, 400, refused.text);
      assert.equal((await t.post(`/api/v2/hosts/${host.id}/groups/`, { name: 'sneaky-group' }, { as: plain })).status, 403);
      assert.equal((await t.post(`/api/v2/hosts/${host.id}/groups/`, { name: 'sneaky-group' }, { as: otherAdmin })).status, 403);
      assert.equal((await t.post(`/api/v2/hosts/${host.id}/groups/`, { name: '' })).status, 400);
      assert.equal(await count('groups', "name IN ('elsewhere', 'sneaky-group', '')", []), 0);
    });
  });

  describe('credentials and notification templates of job templates', () => {
    it('creates a credential and attaches it, or attaches nothing when refused', async () => {
      // The template has a machine credential already: a second is refused by the link (one per type), and the new one is not kept.
      const second = await t.post(`/api/v2/job_templates/${template}/credentials/`, { name: 'second machine', credential_type: machine, organization: org, inputs: {} });
      assert.equal(second.status, 400, second.text);
      assert.equal(await count('credentials', 'name = $1', ['second machine']), 0);
      const vault = (await t.db.query<{ id: number }>("SELECT id FROM credential_types WHERE namespace = 'vault'"))[0].id;
      const made = await t.post(`/api/v2/job_templates/${template}/credentials/`, { name: 'jt vault', credential_type: vault, organization: org, inputs: { vault_password: 'v-secret' } });
      assert.equal(made.status, 201, made.text);
      assert.equal(made.body.inputs.vault_password, '$encrypted$');
      assert.ok((await names(`/api/v2/job_templates/${template}/credentials/`)).includes('jt vault'));
      for (const who of [plain, otherAdmin]) {
        assert.equal((await t.post(`/api/v2/job_templates/${template}/credentials/`, { name: 'sneaky cred', credential_type: machine, organization: otherOrg }, { as: who })).status, 403);
      }
      assert.equal(await count('credentials', 'name = $1', ['sneaky cred']), 0);
    });

    it('creates a notification template and attaches it for the event', async () => {
      const nt = { notification_type: 'webhook', notification_configuration: { url: 'https://hooks.example.com/x', headers: {} } };
      const made = await t.post(`/api/v2/job_templates/${template}/notification_templates_started/`, { name: 'on start', organization: org, ...nt });
      assert.equal(made.status, 201, made.text);
      assert.deepEqual(await names(`/api/v2/job_templates/${template}/notification_templates_started/`), ['on start']);
      assert.deepEqual(await names(`/api/v2/job_templates/${template}/notification_templates_error/`), []);
      const onOrg = await t.post(`/api/v2/organizations/${org}/notification_templates_error/`, { name: 'org errors', organization: org, ...nt });
      assert.equal(onOrg.status, 201, onOrg.text);
      assert.equal((await t.post(`/api/v2/job_templates/${template}/notification_templates_success/`, { name: 'no type', organization: org })).status, 400);
      assert.equal((await t.post(`/api/v2/job_templates/${template}/notification_templates_success/`, { name: 'sneaky nt', organization: otherOrg, ...nt }, { as: otherAdmin })).status, 403);
      assert.equal((await t.post(`/api/v2/organizations/${org}/notification_templates_success/`, { name: 'sneaky nt', organization: org, ...nt }, { as: plain })).status, 403);
      assert.equal(await count('notification_templates', "name IN ('no type', 'sneaky nt')", []), 0);
      // Linking by id still works.
      assert.equal((await t.post(`/api/v2/job_templates/${template}/notification_templates_success/`, { id: made.body.id })).status, 204);
    });
  });
});
