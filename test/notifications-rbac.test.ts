import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, newOrg, newUser, grant, type TestApp } from './helpers/app.ts';
import type { User } from './helpers/factories.ts';
import { makeRepository, type GitRepository } from './helpers/git.ts';
import { eventually, firstProjectUpdate } from './helpers/jobs.ts';

describe('who may see, change, test and attach notification templates', () => {
  let t: TestApp;
  let repo: GitRepository;
  let orgA: any;
  let orgB: any;
  let ntA: any;
  let ntB: any;
  let jtA: any;
  let jtB: any;
  let projectA: number;
  let users: Record<'orgAdmin' | 'notifier' | 'auditor' | 'member' | 'plain' | 'otherAdmin' | 'jtAdmin', User>;

  const template = (org: number, name: string) =>
    t.post('/api/v2/notification_templates/', {
      name, organization: org, notification_type: 'slack', notification_configuration: { token: `${name}-token-secret`, channels: ['#ops'] },
    });

  before(async () => {
    t = await createTestApp();
    repo = await makeRepository({ 'ok.yml': '- hosts: all\n  gather_facts: false\n  tasks: []\n' });
    orgA = await newOrg(t, { name: 'A' });
    orgB = await newOrg(t, { name: 'B' });
    users = {
      orgAdmin: await newUser(t, { admin: orgA.id }),
      notifier: await newUser(t, { member: orgA.id }),
      auditor: await newUser(t, { auditor: orgA.id }),
      member: await newUser(t, { member: orgA.id }),
      plain: await newUser(t),
      otherAdmin: await newUser(t, { admin: orgB.id }),
      jtAdmin: await newUser(t, { member: orgA.id }),
    };
    await grant(t, users.notifier, orgA, 'notification_admin_role');
    ntA = (await template(orgA.id, 'nt-a')).body;
    ntB = (await template(orgB.id, 'nt-b')).body;
    const projects: number[] = [];
    for (const org of [orgA, orgB]) {
      const project = (await t.post('/api/v2/projects/', { name: `p-${org.name}`, organization: org.id, scm_type: 'git', scm_url: `file://${repo.bare}` })).body.id;
      await firstProjectUpdate(t, project);
      projects.push(project);
    }
    projectA = projects[0];
    const inventory = (await t.post('/api/v2/inventories/', { name: 'inv', organization: orgA.id })).body.id;
    jtA = (await t.post('/api/v2/job_templates/', { name: 'jt-a', project: projects[0], inventory, playbook: 'ok.yml' })).body;
    const inventoryB = (await t.post('/api/v2/inventories/', { name: 'inv', organization: orgB.id })).body.id;
    jtB = (await t.post('/api/v2/job_templates/', { name: 'jt-b', project: projects[1], inventory: inventoryB, playbook: 'ok.yml' })).body;
    await grant(t, users.jtAdmin, jtA, 'admin_role');
    await grant(t, users.member, jtA, 'read_role');
  });
  after(async () => {
    await t.close();
    await repo.remove();
  });

  // As for every object: one the caller may not see answers 403 (404 only when it does not exist).
  it('lists and details: notification admins, organization admins and auditors see their organization\'s templates; others see none', async () => {
    const sees = async (who: User) => (await t.get('/api/v2/notification_templates/', { as: who })).body.results.map((n: any) => n.name).sort();
    assert.deepEqual(await sees(users.orgAdmin), ['nt-a']);
    assert.deepEqual(await sees(users.notifier), ['nt-a']);
    assert.deepEqual(await sees(users.auditor), ['nt-a']);
    assert.deepEqual(await sees(users.member), []);
    assert.deepEqual(await sees(users.plain), []);
    assert.deepEqual(await sees(users.otherAdmin), ['nt-b']);
    for (const who of [users.member, users.plain, users.otherAdmin]) {
      assert.equal((await t.get(`/api/v2/notification_templates/${ntA.id}/`, { as: who })).status, 403);
      assert.equal((await t.get(`/api/v2/notification_templates/?name=nt-a`, { as: who })).body.count, 0);
      // Filters through related objects reveal nothing either.
      assert.equal((await t.get(`/api/v2/notification_templates/?organization__name=A`, { as: who })).body.count, 0);
    }
    const shown = await t.get(`/api/v2/notification_templates/${ntA.id}/`, { as: users.auditor });
    assert.equal(shown.body.notification_configuration.token, '$encrypted$');
    assert.doesNotMatch(shown.text, /token-secret/);
  });

  it('creating, changing, deleting and moving need notification admin on the organization(s)', async () => {
    for (const who of [users.auditor, users.member, users.plain, users.otherAdmin, users.jtAdmin]) {
      const res = await t.post('/api/v2/notification_templates/', { name: 'x', organization: orgA.id, notification_type: 'slack', notification_configuration: { token: 'x', channels: ['#a'] } }, { as: who });
      assert.equal(res.status, 403, `${who.username}: ${res.text}`);
    }
    assert.equal((await t.patch(`/api/v2/notification_templates/${ntA.id}/`, { description: 'mine' }, { as: users.auditor })).status, 403);
    assert.equal((await t.patch(`/api/v2/notification_templates/${ntA.id}/`, { description: 'mine' }, { as: users.otherAdmin })).status, 403);
    assert.equal((await t.delete(`/api/v2/notification_templates/${ntA.id}/`, { as: users.otherAdmin })).status, 403);
    const created = await t.post('/api/v2/notification_templates/', { name: 'by-notifier', organization: orgA.id, notification_type: 'slack', notification_configuration: { token: 'x', channels: ['#a'] } }, { as: users.notifier });
    assert.equal(created.status, 201, created.text);
    assert.equal((await t.patch(`/api/v2/notification_templates/${created.body.id}/`, { organization: orgB.id }, { as: users.notifier })).status, 403);
    assert.equal((await t.patch(`/api/v2/notification_templates/${created.body.id}/`, { description: 'changed' }, { as: users.notifier })).status, 200);
    assert.equal((await t.delete(`/api/v2/notification_templates/${created.body.id}/`, { as: users.notifier })).status, 204);
  });

  it('test/ and copy/ need notification admin; nobody else sends', async () => {
    for (const who of [users.auditor]) {
      assert.equal((await t.post(`/api/v2/notification_templates/${ntA.id}/test/`, {}, { as: who })).status, 403);
      assert.equal((await t.post(`/api/v2/notification_templates/${ntA.id}/copy/`, { name: 'c' }, { as: who })).status, 403);
    }
    for (const who of [users.member, users.plain, users.otherAdmin]) {
      assert.equal((await t.post(`/api/v2/notification_templates/${ntA.id}/test/`, {}, { as: who })).status, 403);
      assert.equal((await t.post(`/api/v2/notification_templates/${ntA.id}/copy/`, { name: 'c' }, { as: who })).status, 403);
    }
    assert.equal((await t.db.query('SELECT 1 FROM notifications WHERE notification_template_id = $1', [ntA.id])).length, 0);
    const sent = await t.post(`/api/v2/notification_templates/${ntA.id}/test/`, {}, { as: users.notifier });
    assert.equal(sent.status, 202);
    await eventually(async () => (await t.get(`/api/v2/notifications/${sent.body.notification}/`)).body.status !== 'pending');
  });

  it('notifications are seen by those who see their template, and never carry its secrets', async () => {
    const [row] = await t.db.query('SELECT id FROM notifications WHERE notification_template_id = $1', [ntA.id]);
    assert.ok(row);
    for (const who of [users.orgAdmin, users.notifier, users.auditor]) {
      assert.equal((await t.get(`/api/v2/notifications/${row.id}/`, { as: who })).status, 200);
      const list = await t.get('/api/v2/notifications/', { as: who });
      assert.ok(list.body.results.some((n: any) => n.id === row.id));
      assert.doesNotMatch(list.text, /token-secret/);
    }
    for (const who of [users.member, users.plain, users.otherAdmin]) {
      assert.equal((await t.get(`/api/v2/notifications/${row.id}/`, { as: who })).status, 403);
      assert.equal((await t.get('/api/v2/notifications/', { as: who })).body.count, 0);
      assert.equal((await t.get(`/api/v2/notification_templates/${ntA.id}/notifications/`, { as: who })).status, 403);
    }
    assert.equal((await t.delete(`/api/v2/notifications/${row.id}/`)).status, 405);
  });

  it('a run\'s notifications list only those of templates the caller sees', async () => {
    const [job] = await t.db.query(
      `INSERT INTO unified_jobs (kind, name, status, unified_job_template_id, job_template_id, project_id, organization_id) VALUES ('job', 'jt-a', 'successful', $1, $1, $2, $3) RETURNING id`,
      [jtA.id, projectA, orgA.id],
    );
    await t.db.query(`INSERT INTO notifications (notification_template_id, notification_type, event, unified_job_id, status) VALUES ($1, 'slack', 'success', $2, 'successful')`, [ntA.id, job.id]);
    const url = `/api/v2/jobs/${job.id}/notifications/`;
    assert.equal((await t.get(url, { as: users.member })).status, 200, 'the member reads the job');
    assert.equal((await t.get(url, { as: users.member })).body.count, 0);
    assert.equal((await t.get(url, { as: users.auditor })).body.count, 1);
    assert.equal((await t.get(url, { as: users.otherAdmin })).status, 403);
  });

  it('attaching needs notification admin of the template\'s organization and admin of the object', async () => {
    const url = `/api/v2/job_templates/${jtA.id}/notification_templates_success/`;
    // Admin of the job template, but not of notifications.
    assert.equal((await t.post(url, { id: ntA.id }, { as: users.jtAdmin })).status, 403);
    // Notification admin, but no admin of the job template.
    assert.equal((await t.post(url, { id: ntA.id }, { as: users.notifier })).status, 403);
    // A reader of the job template cannot attach, nor see templates it cannot read through it.
    assert.equal((await t.post(url, { id: ntA.id }, { as: users.member })).status, 403);
    // Another organization's admin: the job template is not visible, and its own template cannot go on it.
    assert.equal((await t.post(url, { id: ntB.id }, { as: users.otherAdmin })).status, 403);
    assert.equal((await t.post(`/api/v2/job_templates/${jtB.id}/notification_templates_success/`, { id: ntA.id }, { as: users.otherAdmin })).status, 403);
    assert.equal((await t.post(`/api/v2/organizations/${orgA.id}/notification_templates_error/`, { id: ntB.id }, { as: users.otherAdmin })).status, 403);
    assert.equal((await t.post(`/api/v2/projects/${projectA}/notification_templates_started/`, { id: ntA.id }, { as: users.plain })).status, 403);
    assert.equal((await t.db.query('SELECT 1 FROM unified_job_template_notification_templates')).length, 0);
    assert.equal((await t.db.query('SELECT 1 FROM organization_notification_templates')).length, 0);

    assert.equal((await t.post(url, { id: ntA.id }, { as: users.orgAdmin })).status, 204);
    assert.equal((await t.post(`/api/v2/organizations/${orgA.id}/notification_templates_approvals/`, { id: ntA.id }, { as: users.orgAdmin })).status, 204);
    // A reader of the job template sees the attachment list only with what it may read (nothing here).
    assert.equal((await t.get(url, { as: users.member })).body.count, 0);
    assert.equal((await t.get(url, { as: users.orgAdmin })).body.count, 1);
    // Detaching asks the same.
    assert.equal((await t.post(url, { id: ntA.id, disassociate: true }, { as: users.notifier })).status, 403);
    assert.equal((await t.post(url, { id: ntA.id, disassociate: true }, { as: users.orgAdmin })).status, 204);
    const activity = await t.get(`/api/v2/job_templates/${jtA.id}/activity_stream/`);
    assert.ok(activity.body.results.some((a: any) => a.operation === 'associate' && a.object_association === 'notification_templates_success'));
    assert.doesNotMatch(activity.text, /token-secret/);
  });

  it('an organization lists the templates created in it, and creating there needs notification admin', async () => {
    const list = await t.get(`/api/v2/organizations/${orgA.id}/notification_templates/`, { as: users.auditor });
    assert.deepEqual(list.body.results.map((n: any) => n.name), ['nt-a']);
    const made = await t.post(`/api/v2/organizations/${orgA.id}/notification_templates/`, { name: 'via-org', notification_type: 'slack', notification_configuration: { token: 't', channels: ['#a'] } }, { as: users.notifier });
    assert.equal(made.status, 201, made.text);
    assert.equal(made.body.organization, orgA.id);
    const refused = await t.post(`/api/v2/organizations/${orgA.id}/notification_templates/`, { name: 'nope', notification_type: 'slack', notification_configuration: { token: 't', channels: ['#a'] } }, { as: users.auditor });
    assert.equal(refused.status, 403);
  });
});
