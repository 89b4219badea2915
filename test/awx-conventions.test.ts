import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, grant, newOrg, newTeam, newUser, type TestApp, type User } from './helpers/app.ts';
import { makeRepository, type GitRepository } from './helpers/git.ts';
import { eventually, waitForRun } from './helpers/jobs.ts';

const PLAY = '- hosts: all\n  gather_facts: false\n  tasks: []\n';

// What AWX's own clients (the awx.awx collection, awxkit's `awx` CLI) rely on beyond the plain
// resource conventions: null coercion, the Allow header, named URLs, capabilities and counts.
describe('AWX conventions', () => {
  let t: TestApp;
  let orgId: number;
  let otherOrgId: number;
  let orgAdmin: User;
  let member: User;
  let outsider: User;
  let machineTypeId: number;

  before(async () => {
    t = await createTestApp();
    orgId = (await newOrg(t, { name: 'Conventions' })).id;
    otherOrgId = (await newOrg(t, { name: 'Elsewhere' })).id;
    orgAdmin = await newUser(t, { admin: orgId });
    member = await newUser(t, { member: orgId });
    outsider = await newUser(t, { admin: otherOrgId });
    machineTypeId = (await t.get('/api/v2/credential_types/?kind=ssh&managed=true')).body.results[0].id;
  });
  after(() => t.close());

  describe('null in a request body', () => {
    it('the inventory module with default arguments creates an inventory (kind and host_filter null)', async () => {
      // What awx.awx.inventory sends when only name and organization are given.
      const res = await t.post('/api/v2/inventories/', { name: 'From the collection', organization: orgId, kind: null, host_filter: null });
      assert.equal(res.status, 201, res.text);
      assert.equal(res.body.kind, '');
      assert.equal(res.body.host_filter, null);
      const [stored] = await t.db.query('SELECT kind, host_filter FROM inventories WHERE id = $1', [res.body.id]);
      assert.deepEqual(stored, { kind: '', host_filter: '' });
    });

    it('null means "" for text and choice fields and false for booleans, on create and update', async () => {
      const created = await t.post('/api/v2/inventories/', { name: 'Nulls', organization: orgId, description: null, prevent_instance_group_fallback: null });
      assert.equal(created.status, 201, created.text);
      assert.equal(created.body.description, '');
      assert.equal(created.body.prevent_instance_group_fallback, false);
      const url = `/api/v2/inventories/${created.body.id}/`;
      const flagged = await t.patch(url, { description: 'set', prevent_instance_group_fallback: true });
      assert.equal(flagged.body.prevent_instance_group_fallback, true, flagged.text);
      const cleared = await t.patch(url, { description: null, prevent_instance_group_fallback: null });
      assert.equal(cleared.status, 200, cleared.text);
      assert.equal(cleared.body.description, '');
      assert.equal(cleared.body.prevent_instance_group_fallback, false);
      const replaced = await t.put(url, { name: 'Nulls', organization: orgId, kind: null, variables: '' });
      assert.equal(replaced.status, 200, replaced.text);
      assert.equal(replaced.body.kind, '');
    });

    it('a required text field sent as null is blank, a choice that has no "" is refused', async () => {
      const org = await t.post('/api/v2/organizations/', { name: null });
      assert.deepEqual([org.status, org.body], [400, { name: ['This field may not be blank.'] }]);
      const type = await t.post('/api/v2/credential_types/', { name: 'Nulled kind', kind: null });
      assert.equal(type.status, 400);
      assert.ok(type.body.kind, type.text);
    });

    it('fields AWX declares nullable keep null, others refuse it', async () => {
      const inv = await t.post('/api/v2/inventories/', { name: 'Keeps null', organization: orgId });
      const host = await t.post('/api/v2/hosts/', { name: 'h-null', inventory: inv.body.id, instance_id: null });
      assert.equal(host.status, 201, host.text);
      const refused = await t.post('/api/v2/organizations/', { name: 'null hosts', max_hosts: null });
      assert.deepEqual([refused.status, refused.body], [400, { max_hosts: ['This field may not be null.'] }]);
      const team = await t.post('/api/v2/teams/', { name: 'no org', organization: null });
      assert.deepEqual([team.status, team.body], [400, { organization: ['This field may not be null.'] }]);
    });

    it('the ad_hoc_command module with default arguments launches (module_args null)', async () => {
      const inv = (await t.post('/api/v2/inventories/', { name: 'Ad hoc nulls', organization: orgId })).body.id;
      const res = await t.post('/api/v2/ad_hoc_commands/', { module_name: 'ping', module_args: null, inventory: inv, credential: null });
      assert.equal(res.status, 201, res.text);
      assert.equal(res.body.module_args, '');
    });

    it('a plain member sending nulls is still refused, and nothing is stored', async () => {
      const res = await t.post('/api/v2/inventories/', { name: 'Member nulls', organization: orgId, kind: null }, { as: member });
      assert.equal(res.status, 403);
      const other = await t.post('/api/v2/inventories/', { name: 'Outsider nulls', organization: orgId, kind: null }, { as: outsider });
      assert.equal(other.status, 403);
      assert.equal((await t.get('/api/v2/inventories/?name__startswith=Member nulls')).body.count, 0);
      assert.equal((await t.get('/api/v2/inventories/?name=Outsider nulls')).body.count, 0);
    });
  });

  describe('the Allow header', () => {
    it('lists every method a list or detail answers, on GET and OPTIONS, whoever asks', async () => {
      for (const as of [undefined, member]) {
        const list = await t.get('/api/v2/organizations/', { as });
        assert.equal(list.headers.allow, 'GET, POST, HEAD, OPTIONS');
        const detail = await t.get(`/api/v2/organizations/${orgId}/`, { as });
        assert.equal(detail.headers.allow, 'GET, PUT, PATCH, DELETE, HEAD, OPTIONS');
        const options = await t.request('OPTIONS', `/api/v2/organizations/${orgId}/`, { as });
        assert.equal(options.headers.allow, 'GET, PUT, PATCH, DELETE, HEAD, OPTIONS');
      }
      assert.equal((await t.get('/api/v2/jobs/')).headers.allow, 'GET, HEAD, OPTIONS');
      assert.equal((await t.get('/api/v2/activity_stream/')).headers.allow, 'GET, HEAD, OPTIONS');
    });

    it('is sent on a 404 for an unknown id (awxkit asks OPTIONS /<resource>/1 to build its commands)', async () => {
      const missing = await t.request('OPTIONS', '/api/v2/credentials/987654');
      assert.equal(missing.status, 404);
      assert.deepEqual(missing.body, { detail: 'Not found.' });
      assert.equal(missing.headers.allow, 'GET, PUT, PATCH, DELETE, HEAD, OPTIONS');
      assert.equal((await t.get('/api/v2/jobs/987654/')).headers.allow, 'GET, DELETE, HEAD, OPTIONS');
    });

    it('is left out of the 404 of a named URL that names nothing, as AWX', async () => {
      const res = await t.get('/api/v2/organizations/No Such Org/');
      assert.deepEqual([res.status, res.body], [404, { detail: 'Not found.' }]);
      assert.equal(res.headers.allow, undefined);
      const path = await t.get('/api/v2/no_such_endpoint/');
      assert.deepEqual([path.status, path.body], [404, { detail: 'Not found.' }]);
      assert.equal(path.headers.allow, undefined);
    });

    it('OPTIONS still says per caller what may be written: POST and PUT in actions', async () => {
      const asMember = await t.request('OPTIONS', `/api/v2/organizations/${orgId}/`, { as: member });
      assert.deepEqual(Object.keys(asMember.body.actions), ['GET']);
      const asAdmin = await t.request('OPTIONS', `/api/v2/organizations/${orgId}/`, { as: orgAdmin });
      assert.ok(asAdmin.body.actions.PUT);
    });
  });

  describe('named URLs', () => {
    let credentialId: number;
    let orgCredentialId: number;

    before(async () => {
      credentialId = (await t.post('/api/v2/credentials/', { name: 'Demo Credential', credential_type: machineTypeId, user: 1, inputs: { username: 'x' } })).body.id;
      orgCredentialId = (await t.post('/api/v2/credentials/', { name: 'Org+Key', credential_type: machineTypeId, organization: orgId, inputs: {} })).body.id;
    });

    it('a credential type is name+kind', async () => {
      const type = await t.get(`/api/v2/credential_types/${machineTypeId}/`);
      assert.equal(type.body.related.named_url, '/api/v2/credential_types/Machine+ssh/');
      const res = await t.get('/api/v2/credential_types/Machine+ssh/');
      assert.equal(res.status, 200);
      assert.equal(res.body.id, machineTypeId);
    });

    it('a credential is name++type name+kind++organization, empty without one', async () => {
      const plain = await t.get(`/api/v2/credentials/${credentialId}/`);
      assert.equal(plain.body.related.named_url, '/api/v2/credentials/Demo%20Credential++Machine+ssh++/');
      assert.equal((await t.get('/api/v2/credentials/Demo Credential++Machine+ssh++/')).body.id, credentialId);
      const owned = await t.get(`/api/v2/credentials/${orgCredentialId}/`);
      assert.equal(owned.body.related.named_url, '/api/v2/credentials/Org[+]Key++Machine+ssh++Conventions/');
      assert.equal((await t.get(owned.body.related.named_url)).body.id, orgCredentialId);
      // The same name in a list shows the same named URL.
      const listed = (await t.get('/api/v2/credentials/?name=Org%2BKey')).body.results[0];
      assert.equal(listed.related.named_url, owned.body.related.named_url);
    });

    it('a host is name++inventory++organization', async () => {
      const inv = (await t.post('/api/v2/inventories/', { name: 'Prod', organization: orgId })).body.id;
      const host = (await t.post('/api/v2/hosts/', { name: 'web1', inventory: inv })).body;
      assert.equal(host.related.named_url, '/api/v2/hosts/web1++Prod++Conventions/');
      assert.equal((await t.get('/api/v2/hosts/web1++Prod++Conventions/')).body.id, host.id);
      assert.equal((await t.get('/api/v2/hosts/web1++Prod++Elsewhere/')).status, 404);
    });

    it('AWX\'s reserved characters are percent-encoded and resolve back', async () => {
      const org = await newOrg(t, { name: 'R&D: a=b;c@d' });
      const detail = await t.get(`/api/v2/organizations/${org.id}/`);
      assert.equal(detail.body.related.named_url, '/api/v2/organizations/R%26D%3A%20a%3Db%3Bc%40d/');
      assert.equal((await t.get(detail.body.related.named_url)).body.id, org.id);
    });

    it('malformed named URLs are 404', async () => {
      for (const url of [
        '/api/v2/credential_types/Machine/',
        '/api/v2/credential_types/Machine+ssh+x/',
        '/api/v2/credentials/Demo Credential++Machine+ssh/',
        '/api/v2/credentials/Demo Credential++Machine+ssh++++/',
        '/api/v2/credentials/Demo Credential/',
      ]) {
        const res = await t.get(url);
        assert.deepEqual([res.status, res.body], [404, { detail: 'Not found.' }], url);
      }
    });

    it('another organization\'s admin cannot read through a named URL', async () => {
      const res = await t.get('/api/v2/credentials/Org[+]Key++Machine+ssh++Conventions/', { as: outsider });
      assert.equal(res.status, 403);
    });
  });

  describe('OPTIONS metadata', () => {
    let repo: GitRepository;
    let templateId: number;
    let projectId: number;
    let jobId: number;

    before(async () => {
      repo = await makeRepository({ 'site.yml': PLAY });
      const project = await t.post('/api/v2/projects/', { name: 'Options project', organization: orgId, scm_type: 'git', scm_url: `file://${repo.bare}` });
      projectId = project.body.id;
      const update = await eventually(async () => (await t.get(`/api/v2/projects/${projectId}/project_updates/`)).body.results[0]);
      assert.equal((await waitForRun(t, update.url)).status, 'successful');
      const inventory = (await t.post('/api/v2/inventories/', { name: 'Options inventory', organization: orgId })).body.id;
      templateId = (await t.post('/api/v2/job_templates/', { name: 'Options JT', project: projectId, inventory, playbook: 'site.yml' })).body.id;
      const job = (await t.post(`/api/v2/job_templates/${templateId}/launch/`, {})).body;
      jobId = job.id;
      await waitForRun(t, job.url);
    });
    after(() => repo.remove());

    it('lists carry types and max_page_size; details types only', async () => {
      const list = await t.request('OPTIONS', '/api/v2/inventories/');
      assert.deepEqual(list.body.types, ['inventory']);
      assert.equal(list.body.max_page_size, 200);
      const mixed = await t.request('OPTIONS', '/api/v2/unified_jobs/');
      assert.deepEqual(mixed.body.types, ['project_update', 'inventory_update', 'job', 'ad_hoc_command', 'system_job', 'workflow_job', 'workflow_approval']);
      assert.deepEqual(mixed.body.actions.GET.type.choices.map((c: string[]) => c[0]), mixed.body.types);
      const detail = await t.request('OPTIONS', `/api/v2/inventories/${(await t.get('/api/v2/inventories/?name=Options inventory')).body.results[0].id}/`);
      assert.deepEqual(detail.body.types, ['inventory']);
      assert.equal(detail.body.max_page_size, undefined);
    });

    it('verbosity and job_type are choices, verbosity with numeric values', async () => {
      const post = (await t.request('OPTIONS', '/api/v2/job_templates/')).body.actions.POST;
      assert.equal(post.verbosity.type, 'choice');
      assert.deepEqual(post.verbosity.choices[0], [0, '0 (Normal)']);
      assert.equal(post.verbosity.choices.length, 6);
      assert.equal(post.job_type.type, 'choice');
      assert.deepEqual(post.job_type.choices.map((c: string[]) => c[0]), ['run', 'check']);
      const sources = (await t.request('OPTIONS', '/api/v2/inventory_sources/')).body.actions.POST;
      assert.deepEqual(sources.verbosity.choices.map((c: unknown[]) => c[0]), [0, 1, 2]);
      const bad = await t.patch(`/api/v2/job_templates/${templateId}/`, { verbosity: 9 });
      assert.deepEqual([bad.status, bad.body], [400, { verbosity: ['"9" is not a valid choice.'] }]);
    });

    it('launch, relaunch and update describe what POST takes in actions', async () => {
      const launch = await t.request('OPTIONS', `/api/v2/job_templates/${templateId}/launch/`);
      assert.equal(launch.status, 200);
      assert.equal(launch.headers.allow, 'GET, POST, HEAD, OPTIONS');
      assert.equal(launch.body.actions.POST.extra_vars.type, 'json');
      assert.equal(launch.body.actions.POST.inventory.type, 'id');
      assert.equal(launch.body.actions.POST.credentials.type, 'list_of_ids');
      assert.equal(launch.body.actions.POST.verbosity.type, 'choice');
      assert.equal(launch.body.actions.GET.can_start_without_user_input.type, 'boolean');
      assert.equal(launch.body.actions.POST.can_start_without_user_input, undefined);
      const update = await t.request('OPTIONS', `/api/v2/projects/${projectId}/update/`);
      assert.equal(update.body.actions.GET.can_update.type, 'boolean');
      assert.deepEqual(update.body.actions.POST, {});
      const relaunch = await t.request('OPTIONS', `/api/v2/jobs/${jobId}/relaunch/`);
      assert.deepEqual(relaunch.body.actions.POST.hosts.choices, [['all', 'All'], ['failed', 'Failed']]);
    });

    it('a caller who may not see the template gets no launch description', async () => {
      const res = await t.request('OPTIONS', `/api/v2/job_templates/${templateId}/launch/`, { as: outsider });
      assert.equal(res.status, 403);
    });

    describe('user_capabilities', () => {
      it('a job template shows start, schedule and copy; a member with execute only starts it', async () => {
        const admin = (await t.get(`/api/v2/job_templates/${templateId}/`)).body.summary_fields.user_capabilities;
        assert.deepEqual(admin, { edit: true, delete: true, start: true, schedule: true, copy: true });
        const runner = await newUser(t, { member: orgId });
        await grant(t, runner, `/api/v2/job_templates/${templateId}/`, 'execute_role');
        const asRunner = (await t.get(`/api/v2/job_templates/${templateId}/`, { as: runner })).body.summary_fields.user_capabilities;
        assert.deepEqual(asRunner, { edit: false, delete: false, start: true, schedule: true, copy: false });
        const listed = (await t.get('/api/v2/job_templates/', { as: runner })).body.results.find((r: any) => r.id === templateId);
        assert.deepEqual(listed.summary_fields.user_capabilities, asRunner);
      });

      it('a project shows start, schedule and copy; a manual project none of them', async () => {
        const synced = (await t.get(`/api/v2/projects/${projectId}/`)).body.summary_fields.user_capabilities;
        assert.deepEqual(synced, { edit: true, delete: true, start: true, schedule: true, copy: true });
        const asMember = (await t.get(`/api/v2/projects/${projectId}/`, { as: orgAdmin })).body.summary_fields.user_capabilities;
        assert.deepEqual(asMember, { edit: true, delete: true, start: true, schedule: true, copy: true });
      });

      it('an inventory shows adhoc and copy; groups copy as they edit; runs start and delete', async () => {
        const inv = (await t.get('/api/v2/inventories/?name=Options inventory')).body.results[0];
        assert.deepEqual(inv.summary_fields.user_capabilities, { edit: true, delete: true, copy: true, adhoc: true });
        const asMember = (await t.get(`/api/v2/inventories/${inv.id}/`, { as: member })).status;
        assert.equal(asMember, 403);
        const group = (await t.post('/api/v2/groups/', { name: 'g', inventory: inv.id })).body;
        assert.deepEqual(group.summary_fields.user_capabilities, { edit: true, delete: true, copy: true });
        const job = (await t.get(`/api/v2/jobs/${jobId}/`)).body;
        assert.deepEqual(Object.keys(job.summary_fields.user_capabilities), ['delete', 'start']);
        const update = (await t.get(`/api/v2/projects/${projectId}/project_updates/`)).body.results[0];
        assert.deepEqual(update.summary_fields.user_capabilities, { delete: true, start: true });
      });

      it('a read-scoped token may do nothing', async () => {
        const token = await t.post('/api/v2/tokens/', { scope: 'read' });
        assert.equal(token.status, 201, token.text);
        const res = await t.get(`/api/v2/job_templates/${templateId}/`, { headers: { authorization: `Bearer ${token.body.token}` }, as: null });
        assert.equal(res.status, 200, res.text);
        assert.ok(Object.values(res.body.summary_fields.user_capabilities).every((v) => v === false));
      });
    });
  });

  describe('counts and list options', () => {
    it('organizations show related_field_counts of what the caller sees', async () => {
      const org = await newOrg(t, { name: 'Counted' });
      const admin = await newUser(t, { admin: org.id });
      await newUser(t, { member: org.id });
      await newTeam(t, org.id, { name: 'Counted team' });
      await t.post('/api/v2/inventories/', { name: 'Counted inv 1', organization: org.id });
      await t.post('/api/v2/inventories/', { name: 'Counted inv 2', organization: org.id });
      const expected = { inventories: 2, teams: 1, users: 1, job_templates: 0, admins: 1, projects: 0 };
      const detail = await t.get(`/api/v2/organizations/${org.id}/`);
      assert.deepEqual(detail.body.summary_fields.related_field_counts, expected);
      const listed = (await t.get('/api/v2/organizations/?name=Counted')).body.results[0];
      assert.deepEqual(listed.summary_fields.related_field_counts, expected);
      assert.deepEqual((await t.get(`/api/v2/organizations/${org.id}/`, { as: admin })).body.summary_fields.related_field_counts, expected);
      // A member sees the organization's teams and members, but no inventory he was not given.
      const plain = await newUser(t, { member: org.id });
      const asPlain = (await t.get(`/api/v2/organizations/${org.id}/`, { as: plain })).body.summary_fields.related_field_counts;
      assert.equal(asPlain.inventories, 0);
      assert.equal(asPlain.users, 2);
    });

    it('?count_disabled=1 answers only results', async () => {
      const res = await t.get('/api/v2/organizations/?count_disabled=1&order_by=name&page_size=2');
      assert.equal(res.status, 200);
      assert.deepEqual(Object.keys(res.body), ['results']);
      assert.equal(res.body.results.length, 2);
      const counted = await t.get('/api/v2/organizations/?order_by=name&page_size=2');
      assert.deepEqual(res.body.results.map((r: any) => r.id), counted.body.results.map((r: any) => r.id));
    });

    it('?host_filter= on hosts selects as a smart inventory filter, within what the caller sees', async () => {
      const inv = (await t.post('/api/v2/inventories/', { name: 'Filtered', organization: orgId })).body.id;
      await t.post('/api/v2/hosts/', { name: 'db1.filtered', inventory: inv });
      await t.post('/api/v2/hosts/', { name: 'web1.filtered', inventory: inv });
      const res = await t.get('/api/v2/hosts/?host_filter=name__startswith=db1 or name=web1.filtered&order_by=name');
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body.results.map((h: any) => h.name), ['db1.filtered', 'web1.filtered']);
      const grouped = await t.get('/api/v2/hosts/?host_filter=(name__startswith=db1 and inventory__name=Filtered)');
      assert.deepEqual(grouped.body.results.map((h: any) => h.name), ['db1.filtered']);
      const other = await t.get('/api/v2/hosts/?host_filter=name__startswith=db1', { as: outsider });
      assert.equal(other.body.count, 0);
      const bad = await t.get('/api/v2/hosts/?host_filter=name__startswith=(');
      assert.equal(bad.status, 400);
      assert.equal(typeof bad.body.detail, 'string');
    });
  });

  describe('users', () => {
    it('users and /me carry auth, [] for local accounts', async () => {
      assert.deepEqual((await t.get('/api/v2/me/', { as: member })).body.results[0].auth, []);
      assert.deepEqual((await t.get(`/api/v2/users/${member.id}/`)).body.auth, []);
    });

    it('an unknown object answers AWX\'s 404', async () => {
      const res = await t.get('/api/v2/users/987654/');
      assert.deepEqual([res.status, res.body], [404, { detail: 'Not found.' }]);
    });
  });
});
