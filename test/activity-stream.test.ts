import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, newOrg, newTeam, newUser, type TestApp } from './helpers/app.ts';

// Rows here are still read untyped: this file is not yet converted to its tables' generated row types
// (docs/architecture.md, "Typed rows"). Remove AnyRow once it is.
type AnyRow = any;

describe('activity stream', () => {
  let t: TestApp;
  let adminId: number;

  before(async () => {
    t = await createTestApp();
    adminId = (await t.get('/api/v2/users/admin/')).body.id;
  });
  after(() => t.close());

  /** Records about one object, oldest first, as the API shows them. */
  async function recordsOf(object1: string, id: number, extra = ''): Promise<any[]> {
    const res = await t.get(`/api/v2/activity_stream/?object1=${object1}&object1_id=${id}&order_by=id${extra}`);
    assert.equal(res.status, 200, res.text);
    return res.body.results;
  }

  const countActivity = async () => (await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM activity_stream'))[0].n;

  describe('each change writes a record', () => {
    let orgId: number;

    it('create', async () => {
      const before = Date.now();
      orgId = (await newOrg(t, { name: 'Tracked', description: 'first' })).id;
      const [record, ...rest] = await recordsOf('organization', orgId);
      assert.equal(rest.length, 0);
      assert.equal(record.type, 'activity_stream');
      assert.equal(record.url, `/api/v2/activity_stream/${record.id}/`);
      assert.equal(record.operation, 'create');
      assert.equal(record.object1, 'organization');
      assert.equal(record.object1_id, orgId);
      assert.equal(record.object2, '');
      assert.equal(record.object2_id, null);
      assert.deepEqual(record.changes, { name: 'Tracked', description: 'first', max_hosts: 0, policy_enforcement: 'none', webauthn_required: 'none', default_environment: null });
      assert.equal(record.actor, adminId);
      assert.deepEqual(record.summary_fields.actor, { id: adminId, username: 'admin', first_name: '', last_name: '' });
      assert.equal(record.related.actor, `/api/v2/users/${adminId}/`);
      const stamp = Date.parse(record.timestamp);
      assert.ok(stamp >= before - 5_000 && stamp <= Date.now() + 5_000, record.timestamp);
      assert.equal(record.created, undefined);
    });

    it('update, with changes as [old, new] for changed fields only', async () => {
      await t.patch(`/api/v2/organizations/${orgId}/`, { description: 'second', max_hosts: 3, name: 'Tracked' });
      const records = await recordsOf('organization', orgId, '&operation=update');
      assert.equal(records.length, 1);
      assert.deepEqual(records[0].changes, { description: ['first', 'second'], max_hosts: [0, 3] });
      assert.equal(records[0].actor, adminId);
    });

    it('an update that changes nothing writes nothing', async () => {
      const before = await countActivity();
      assert.equal((await t.patch(`/api/v2/organizations/${orgId}/`, { description: 'second' })).status, 200);
      assert.equal(await countActivity(), before);
    });

    it('associate and disassociate', async () => {
      const teamId = (await t.post(`/api/v2/organizations/${orgId}/teams/`, { name: 'Trackers' })).body.id;
      const user = await t.createUser('tracked-user');
      await t.post(`/api/v2/teams/${teamId}/users/`, { id: user.id });
      await t.post(`/api/v2/teams/${teamId}/users/`, { id: user.id });
      await t.post(`/api/v2/teams/${teamId}/users/`, { id: user.id, disassociate: true });
      await t.post(`/api/v2/teams/${teamId}/users/`, { id: user.id, disassociate: true });
      const records = await recordsOf('team', teamId);
      assert.deepEqual(
        records.map((r) => [r.operation, r.object1, r.object1_id, r.object2, r.object2_id, r.object_association]),
        [
          ['create', 'team', teamId, '', null, ''],
          ['associate', 'team', teamId, 'user', user.id, 'member_role'],
          ['disassociate', 'team', teamId, 'user', user.id, 'member_role'],
        ],
      );
      assert.deepEqual(records[1].changes, {});
      assert.deepEqual(records[0].changes, { name: 'Trackers', description: '', organization: orgId });
    });

    it('delete, with what the object held', async () => {
      const doomed = (await newOrg(t, { name: 'Doomed', max_hosts: 9 })).id;
      const teamId = (await t.post(`/api/v2/organizations/${doomed}/teams/`, { name: 'Doomed Team' })).body.id;
      await t.delete(`/api/v2/organizations/${doomed}/`);
      const [record] = await recordsOf('organization', doomed, '&operation=delete');
      assert.equal(record.object1_id, doomed);
      assert.deepEqual(record.changes, { name: 'Doomed', description: '', max_hosts: 9, policy_enforcement: 'none', webauthn_required: 'none', default_environment: null });
      const [teamRecord] = await recordsOf('team', teamId, '&operation=delete');
      assert.deepEqual(teamRecord.changes, { name: 'Doomed Team', description: '', organization: doomed });
      assert.equal(teamRecord.actor, adminId);
    });

    it('the actor is whoever made the change', async () => {
      const editor = await t.createUser('self-editor');
      await t.patch(`/api/v2/users/${editor.id}/`, { first_name: 'Ed' }, { as: editor });
      const [record] = await recordsOf('user', editor.id, '&operation=update');
      assert.equal(record.actor, editor.id);
      assert.deepEqual(record.changes, { first_name: ['', 'Ed'] });
    });
  });

  describe('secrets', () => {
    it('password changes appear as "hidden" and the hash appears nowhere', async () => {
      const user = await t.createUser('secretive');
      await t.patch(`/api/v2/users/${user.id}/`, { password: 'a-brand-new-secret' });
      const [created, updated] = await recordsOf('user', user.id);
      assert.equal(created.operation, 'create');
      assert.equal(created.changes.password, 'hidden');
      assert.equal(created.changes.username, 'secretive');
      assert.equal(updated.operation, 'update');
      assert.deepEqual(updated.changes, { password: ['hidden', 'hidden'] });

      const [{ password: hash }] = await t.db.query<AnyRow>('SELECT password FROM users WHERE id = $1', [user.id]);
      const all = await t.get('/api/v2/activity_stream/?page_size=200');
      assert.ok(all.body.count <= 200);
      for (const needle of [hash, '$argon2', 'a-brand-new-secret', 'secretive-pw']) {
        assert.ok(!all.text.includes(needle), needle);
        const stored = await t.db.query<AnyRow>(`SELECT id FROM activity_stream WHERE changes::text LIKE '%' || $1 || '%'`, [needle]);
        assert.equal(stored.length, 0, needle);
      }
      await t.delete(`/api/v2/users/${user.id}/`);
      const [deleted] = await recordsOf('user', user.id, '&operation=delete');
      assert.equal(deleted.changes.password, 'hidden');
    });
  });

  describe('lists', () => {
    let orgId: number;
    let teamId: number;
    let userId: number;

    before(async () => {
      orgId = (await newOrg(t, { name: 'Listed' })).id;
      teamId = (await newTeam(t, orgId, { name: 'Listed Team' })).id;
      userId = (await newUser(t, { username: 'listed-user', member: orgId })).id;
      await t.post(`/api/v2/teams/${teamId}/users/`, { id: userId });
      await t.patch(`/api/v2/organizations/${orgId}/`, { description: 'changed' });
    });

    const summary = (r: any) => `${r.operation} ${r.object1}${r.object2 ? `+${r.object2}` : ''}`;

    it('per organization', async () => {
      const res = await t.get(`/api/v2/organizations/${orgId}/activity_stream/?order_by=id`);
      assert.equal(res.status, 200);
      assert.deepEqual(res.body.results.map(summary), ['create organization', 'associate organization+user', 'update organization']);
      assert.equal(res.body.count, 3);
    });

    it('per team', async () => {
      const res = await t.get(`/api/v2/teams/${teamId}/activity_stream/?order_by=id`);
      assert.deepEqual(res.body.results.map(summary), ['create team', 'associate team+user']);
    });

    it('per user, including associations naming him second', async () => {
      const res = await t.get(`/api/v2/users/${userId}/activity_stream/?order_by=id`);
      assert.deepEqual(res.body.results.map(summary), ['create user', 'associate organization+user', 'associate team+user']);
    });

    it('filters', async () => {
      const creates = await t.get('/api/v2/activity_stream/?operation=create&object1=organization&page_size=200');
      assert.ok(creates.body.count >= 1);
      assert.ok(creates.body.results.every((r: any) => r.operation === 'create' && r.object1 === 'organization'));
      assert.ok(creates.body.results.some((r: any) => r.object1_id === orgId));
      const byAdmin = await t.get('/api/v2/activity_stream/?actor__username=admin&page_size=200');
      assert.ok(byAdmin.body.count > 0);
      assert.ok(byAdmin.body.results.every((r: any) => r.actor === adminId));
      const bySystem = await t.get('/api/v2/activity_stream/?actor__isnull=true');
      assert.deepEqual(bySystem.body.results.map(summary).sort(), ['create execution_environment', 'create instance_group', 'create organization', 'create user'], 'the installer created admin, Default, the default execution environment and instance group');
      const associations = await t.get(`/api/v2/activity_stream/?operation__in=associate,disassociate&object2_id=${userId}`);
      assert.equal(associations.body.count, 2);
      const mentioning = await t.get('/api/v2/activity_stream/?changes__icontains=LISTED%20TEAM');
      assert.deepEqual(mentioning.body.results.map(summary), ['create team']);
      const none = await t.get('/api/v2/activity_stream/?actor__username=nobody');
      assert.equal(none.body.count, 0);
      assert.equal((await t.get('/api/v2/activity_stream/?operation=explode')).body.count, 0);
      assert.equal((await t.get('/api/v2/activity_stream/?actor__password=x')).status, 403);
    });

    it('newest first by default', async () => {
      const res = await t.get('/api/v2/activity_stream/?page_size=200');
      const ids = res.body.results.map((r: any) => r.id);
      assert.deepEqual(ids, [...ids].sort((a: number, b: number) => b - a));
    });

    it('is read-only', async () => {
      const [{ id }] = await t.db.query<AnyRow>('SELECT id FROM activity_stream ORDER BY id LIMIT 1');
      assert.equal((await t.get(`/api/v2/activity_stream/${id}/`)).status, 200);
      assert.equal((await t.post('/api/v2/activity_stream/', { operation: 'create' })).status, 405);
      assert.equal((await t.patch(`/api/v2/activity_stream/${id}/`, { operation: 'delete' })).status, 405);
      assert.equal((await t.delete(`/api/v2/activity_stream/${id}/`)).status, 405);
      assert.equal((await t.db.query<AnyRow>('SELECT 1 FROM activity_stream WHERE id = $1', [id])).length, 1);
    });

    it('a plain user sees only his own actions', async () => {
      const plain = await t.createUser('quiet');
      await t.patch(`/api/v2/users/${plain.id}/`, { last_name: 'Quiet' }, { as: plain });
      const res = await t.get('/api/v2/activity_stream/', { as: plain });
      assert.equal(res.status, 200);
      assert.equal(res.body.count, 1);
      assert.equal(res.body.results[0].actor, plain.id);
      const [{ id: other }] = await t.db.query<AnyRow>('SELECT id FROM activity_stream WHERE actor_id = $1 LIMIT 1', [adminId]);
      assert.equal((await t.get(`/api/v2/activity_stream/${other}/`, { as: plain })).status, 403);
    });
  });

  describe('transactions', () => {
    it('a failing activity record rolls the change back', async () => {
      await t.db.exec(`
        CREATE FUNCTION refuse_activity() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'activity refused'; END $$;
        CREATE TRIGGER refuse_activity BEFORE INSERT ON activity_stream FOR EACH ROW EXECUTE FUNCTION refuse_activity();`);
      const orgId = (await t.db.query<AnyRow>(`SELECT id FROM organizations WHERE name = 'Default'`))[0].id;
      const user = (await t.db.query<AnyRow>(`SELECT id FROM users WHERE username = 'tracked-user'`))[0].id;
      try {
        const res = await t.post('/api/v2/organizations/', { name: 'Never Stored' });
        assert.ok(res.status >= 500, String(res.status));
        assert.deepEqual(res.body, { detail: 'A server error has occurred.' });
        assert.equal((await t.db.query<AnyRow>(`SELECT 1 FROM organizations WHERE name = 'Never Stored'`)).length, 0);
        assert.equal((await t.db.query<AnyRow>(`SELECT 1 FROM roles WHERE content_type = 'organization' AND object_id NOT IN (SELECT id FROM organizations)`)).length, 0);

        assert.ok((await t.patch(`/api/v2/organizations/${orgId}/`, { description: 'never' })).status >= 500);
        assert.equal((await t.db.query<AnyRow>('SELECT description FROM organizations WHERE id = $1', [orgId]))[0].description, '');

        assert.ok((await t.post(`/api/v2/organizations/${orgId}/users/`, { id: user })).status >= 500);
        assert.equal((await t.get(`/api/v2/organizations/${orgId}/users/?id=${user}`)).body.count, 0);

        assert.ok((await t.delete(`/api/v2/organizations/${orgId}/`)).status >= 500);
        assert.equal((await t.db.query<AnyRow>('SELECT 1 FROM organizations WHERE id = $1', [orgId])).length, 1);

        assert.ok((await t.post('/api/v2/users/', { username: 'never-user', password: 'pw', is_superuser: true })).status >= 500);
        assert.equal((await t.db.query<AnyRow>(`SELECT 1 FROM users WHERE username = 'never-user'`)).length, 0);
      } finally {
        await t.db.exec('DROP TRIGGER refuse_activity ON activity_stream; DROP FUNCTION refuse_activity();');
      }
      await newOrg(t, { name: 'Stored Again' });
    });

    it('a change that fails after its record was written leaves no record', async () => {
      await t.db.exec(`
        CREATE FUNCTION refuse_org() RETURNS trigger LANGUAGE plpgsql AS $$
          BEGIN IF NEW.name LIKE 'refused%' THEN RAISE EXCEPTION 'organization refused'; END IF; RETURN NULL; END $$;
        CREATE CONSTRAINT TRIGGER refuse_org AFTER INSERT OR UPDATE ON organizations
          DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION refuse_org();`);
      try {
        const before = await countActivity();
        const res = await t.post('/api/v2/organizations/', { name: 'refused-at-commit' });
        assert.ok(res.status >= 500, String(res.status));
        assert.equal((await t.db.query<AnyRow>(`SELECT 1 FROM organizations WHERE name = 'refused-at-commit'`)).length, 0);
        assert.equal(await countActivity(), before);
        const orgId = (await newOrg(t, { name: 'accepted' })).id;
        const afterCreate = await countActivity();
        assert.equal(afterCreate, before + 1);
        assert.ok((await t.patch(`/api/v2/organizations/${orgId}/`, { name: 'refused-rename' })).status >= 500);
        assert.equal(await countActivity(), afterCreate);
        assert.equal((await t.get(`/api/v2/organizations/${orgId}/`)).body.name, 'accepted');
      } finally {
        await t.db.exec('DROP TRIGGER refuse_org ON organizations; DROP FUNCTION refuse_org();');
      }
    });

    it('a failing side effect (system role sync) writes no record and no user', async () => {
      await t.db.exec(`
        CREATE FUNCTION refuse_membership() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'membership refused'; END $$;
        CREATE TRIGGER refuse_membership BEFORE INSERT ON role_users FOR EACH ROW EXECUTE FUNCTION refuse_membership();`);
      try {
        const before = await countActivity();
        const res = await t.post('/api/v2/users/', { username: 'half-made', password: 'pw', is_superuser: true });
        assert.ok(res.status >= 500, String(res.status));
        assert.equal((await t.db.query<AnyRow>(`SELECT 1 FROM users WHERE username = 'half-made'`)).length, 0);
        assert.equal(await countActivity(), before);
      } finally {
        await t.db.exec('DROP TRIGGER refuse_membership ON role_users; DROP FUNCTION refuse_membership();');
      }
    });
  });
});
