import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, grant, newOrg, newTeam, newUser, type TestApp } from './helpers/app.ts';
import { newInventory } from './helpers/factories.ts';

describe('role definitions and assignments (django-ansible-base API)', () => {
  let t: TestApp;
  let org: any;
  let inventory: any;
  let definitions: Map<string, any>;

  const roleId = async (contentType: string, objectId: number, roleField: string): Promise<number> =>
    (await t.db.query<{ id: number }>('SELECT id FROM roles WHERE content_type = $1 AND object_id = $2 AND role_field = $3', [contentType, objectId, roleField]))[0].id;
  const holds = async (userId: number, role: number) => (await t.db.query('SELECT 1 FROM role_users WHERE role_id = $1 AND user_id = $2', [role, userId])).length > 0;

  before(async () => {
    t = await createTestApp();
    org = await newOrg(t);
    inventory = await newInventory(t, org.id);
    const res = await t.get('/api/v2/role_definitions/?page_size=200');
    assert.equal(res.status, 200, res.text);
    definitions = new Map(res.body.results.map((d: any) => [d.name, d]));
  });
  after(() => t.close());

  it('lists the managed definitions with AWX names, content types and permissions', async () => {
    const use = definitions.get('Inventory Use');
    assert.equal(use.content_type, 'awx.inventory');
    assert.equal(use.managed, true);
    assert.deepEqual([...use.permissions].sort(), ['awx.use_inventory', 'awx.view_inventory']);
    assert.deepEqual([...definitions.get('Inventory Admin').permissions].sort(),
      ['awx.adhoc_inventory', 'awx.change_inventory', 'awx.delete_inventory', 'awx.update_inventory', 'awx.use_inventory', 'awx.view_inventory']);
    assert.equal(definitions.get('Organization Admin').content_type, 'shared.organization');
    assert.ok(definitions.get('Organization Admin').permissions.includes('awx.add_inventory'));
    for (const name of ['JobTemplate Execute', 'Project Update', 'Credential Use', 'Team Member', 'WorkflowJobTemplate Approve', 'Organization Member']) {
      assert.ok(definitions.has(name), name);
    }
    const filtered = await t.get('/api/v2/role_definitions/?content_type=awx.inventory');
    assert.ok(filtered.body.results.every((d: any) => d.content_type === 'awx.inventory'));
    assert.equal(filtered.body.count, 5);
  });

  it('role_metadata lists the permissions allowed per content type', async () => {
    const res = await t.get('/api/v2/role_metadata/');
    assert.equal(res.status, 200, res.text);
    assert.ok(res.body.allowed_permissions['awx.inventory'].includes('awx.adhoc_inventory'));
    assert.ok(!res.body.allowed_permissions['awx.inventory'].includes('awx.add_inventory'));
    assert.ok(res.body.allowed_permissions['shared.organization'].includes('awx.add_inventory'));
  });

  it('managed definitions cannot be changed or deleted', async () => {
    const id = definitions.get('Inventory Use').id;
    assert.equal((await t.patch(`/api/v2/role_definitions/${id}/`, { name: 'x' })).status, 403);
    assert.equal((await t.delete(`/api/v2/role_definitions/${id}/`)).status, 403);
  });

  describe('custom definitions', () => {
    it('a superuser creates one equal to a role; it assigns that role', async () => {
      const res = await t.post('/api/v2/role_definitions/', { name: 'Inventory Runner', content_type: 'awx.inventory', permissions: ['awx.view_inventory', 'use_inventory'] });
      assert.equal(res.status, 201, res.text);
      assert.equal(res.body.managed, false);
      assert.deepEqual([...res.body.permissions].sort(), ['awx.use_inventory', 'awx.view_inventory']);
      const user = await newUser(t);
      const assigned = await t.post('/api/v2/role_user_assignments/', { role_definition: res.body.id, user: user.id, object_id: inventory.id });
      assert.equal(assigned.status, 201, assigned.text);
      assert.equal(assigned.body.role_definition, res.body.id);
      assert.ok(await holds(user.id, await roleId('inventory', inventory.id, 'use_role')));
      // Deleting the definition takes away what was assigned through it (DAB cascades).
      assert.equal((await t.delete(`/api/v2/role_definitions/${res.body.id}/`)).status, 204);
      assert.ok(!(await holds(user.id, await roleId('inventory', inventory.id, 'use_role'))));
    });

    it('refuses permission sets no role grants, foreign permissions, and a missing view', async () => {
      const cases: [unknown, RegExp][] = [
        [{ name: 'a', content_type: 'awx.inventory', permissions: ['awx.view_inventory', 'awx.delete_inventory'] }, /exactly those of one of its roles/],
        [{ name: 'b', content_type: 'awx.inventory', permissions: ['awx.view_project'] }, /not valid for inventory roles/],
        [{ name: 'c', content_type: 'awx.inventory', permissions: ['awx.use_inventory'] }, /needs to include view/],
        [{ name: 'd', content_type: 'awx.inventory', permissions: ['awx.fly_inventory'] }, /does not exist/],
        [{ name: 'e', content_type: 'awx.spaceship', permissions: ['awx.view_inventory'] }, /does not exist/],
        [{ name: 'f', content_type: null, permissions: ['awx.view_inventory'] }, /System-wide roles are not enabled/],
        [{ name: 'g', content_type: 'awx.inventory', permissions: 'awx.view_inventory' }, /Expected a list/],
      ];
      for (const [body, message] of cases) {
        const res = await t.post('/api/v2/role_definitions/', body);
        assert.equal(res.status, 400, res.text);
        assert.match(res.text, message);
      }
      const [{ count }] = await t.db.query<{ count: number }>('SELECT count(*)::int AS count FROM role_definitions WHERE NOT managed');
      assert.equal(count, 0);
    });

    it('only superusers create them: a plain user and an organization admin get 403', async () => {
      const plain = await newUser(t);
      const admin = await newUser(t);
      await grant(t, admin, org, 'admin_role');
      for (const as of [plain, admin]) {
        const res = await t.post('/api/v2/role_definitions/', { name: 'Mine', content_type: 'awx.inventory', permissions: ['awx.view_inventory'] }, { as });
        assert.equal(res.status, 403, res.text);
      }
      assert.equal((await t.get('/api/v2/role_definitions/?name=Mine')).body.count, 0);
    });
  });

  describe('assignments', () => {
    it('an assignment made either way is the same grant, seen from both APIs', async () => {
      const alice = await newUser(t);
      const useRole = await roleId('inventory', inventory.id, 'use_role');
      const made = await t.post('/api/v2/role_user_assignments/', { role_definition: definitions.get('Inventory Use').id, user: alice.id, object_id: String(inventory.id) });
      assert.equal(made.status, 201, made.text);
      assert.equal(made.body.content_type, 'awx.inventory');
      assert.equal(made.body.object_id, String(inventory.id));
      assert.equal(made.body.user, alice.id);
      const viaRoles = await t.get(`/api/v2/roles/${useRole}/users/`);
      assert.deepEqual(viaRoles.body.results.map((u: any) => u.id), [alice.id]);
      // Granted through the old API: listed as an assignment of the managed definition.
      const bob = await newUser(t);
      assert.equal((await t.post(`/api/v2/roles/${useRole}/users/`, { id: bob.id })).status, 204);
      const list = await t.get(`/api/v2/role_user_assignments/?object_id=${inventory.id}&content_type=awx.inventory&user=${bob.id}`);
      assert.equal(list.body.count, 1, list.text);
      assert.equal(list.body.results[0].role_definition, definitions.get('Inventory Use').id);
      const sub = await t.get(`/api/v2/role_definitions/${definitions.get('Inventory Use').id}/user_assignments/`);
      assert.deepEqual(sub.body.results.map((a: any) => a.user).sort(), [alice.id, bob.id].sort());
      // DELETE takes the grant away, as disassociating does.
      assert.equal((await t.delete(`/api/v2/role_user_assignments/${made.body.id}/`)).status, 204);
      assert.ok(!(await holds(alice.id, useRole)));
      assert.equal((await t.get(`/api/v2/roles/${useRole}/users/`)).body.count, 1);
    });

    it('team assignments are team grants', async () => {
      const team = await newTeam(t, org.id);
      const adhoc = await roleId('inventory', inventory.id, 'adhoc_role');
      const made = await t.post('/api/v2/role_team_assignments/', { role_definition: definitions.get('Inventory Adhoc').id, team: team.id, object_id: inventory.id });
      assert.equal(made.status, 201, made.text);
      assert.deepEqual((await t.get(`/api/v2/roles/${adhoc}/teams/`)).body.results.map((x: any) => x.id), [team.id]);
      assert.equal((await t.get(`/api/v2/role_team_assignments/?team=${team.id}`)).body.count, 1);
      assert.equal((await t.delete(`/api/v2/role_team_assignments/${made.body.id}/`)).status, 204);
      assert.equal((await t.get(`/api/v2/roles/${adhoc}/teams/`)).body.count, 0);
      // As /roles/{id}/teams/: organization membership is personal.
      const refused = await t.post('/api/v2/role_team_assignments/', { role_definition: definitions.get('Organization Member').id, team: team.id, object_id: org.id });
      assert.equal(refused.status, 400, refused.text);
    });

    it('bad input gets a clear 400 and stores nothing', async () => {
      const user = await newUser(t);
      const id = definitions.get('Inventory Use').id;
      for (const body of [
        { role_definition: id, user: user.id },
        { role_definition: id, user: user.id, object_id: 99999 },
        { role_definition: id, user: user.id, object_id: 'abc' },
        { role_definition: 99999, user: user.id, object_id: inventory.id },
        { role_definition: id, object_id: inventory.id },
      ]) {
        const res = await t.post('/api/v2/role_user_assignments/', body);
        assert.ok(res.status === 400, `${JSON.stringify(body)}: ${res.status} ${res.text}`);
      }
      assert.equal((await t.get(`/api/v2/role_user_assignments/?user=${user.id}`)).body.count, 0);
    });

    it('a plain user and another organization\'s admin cannot assign on my objects, nor see or delete assignments', async () => {
      const plain = await newUser(t);
      const other = await newOrg(t);
      const otherAdmin = await newUser(t);
      await grant(t, otherAdmin, other, 'admin_role');
      const target = await newUser(t);
      await grant(t, target, other, 'member_role');
      const id = definitions.get('Inventory Admin').id;
      for (const as of [plain, otherAdmin]) {
        const res = await t.post('/api/v2/role_user_assignments/', { role_definition: id, user: as.id, object_id: inventory.id }, { as });
        assert.ok([400, 403].includes(res.status), res.text);
        const team = await t.post('/api/v2/role_team_assignments/', { role_definition: id, team: 1, object_id: inventory.id }, { as });
        assert.ok([400, 403].includes(team.status), team.text);
      }
      assert.ok(!(await holds(otherAdmin.id, await roleId('inventory', inventory.id, 'admin_role'))));
      const mine = await t.post('/api/v2/role_user_assignments/', { role_definition: definitions.get('Inventory Use').id, user: target.id, object_id: inventory.id });
      assert.equal(mine.status, 201, mine.text);
      assert.equal((await t.get('/api/v2/role_user_assignments/', { as: otherAdmin })).body.results.filter((a: any) => a.object_id === String(inventory.id)).length, 0);
      assert.equal((await t.delete(`/api/v2/role_user_assignments/${mine.body.id}/`, { as: otherAdmin })).status, 403);
      assert.equal((await t.delete(`/api/v2/role_user_assignments/${mine.body.id}/`, { as: plain })).status, 403);
      assert.ok(await holds(target.id, await roleId('inventory', inventory.id, 'use_role')));
    });

    it('an organization admin assigns roles on the organization\'s objects', async () => {
      const admin = await newUser(t);
      await grant(t, admin, org, 'admin_role');
      const member = await newUser(t);
      await grant(t, member, org, 'member_role');
      const res = await t.post('/api/v2/role_user_assignments/', { role_definition: definitions.get('Inventory Use').id, user: member.id, object_id: inventory.id }, { as: admin });
      assert.equal(res.status, 201, res.text);
      const seen = await t.get(`/api/v2/role_user_assignments/?user=${member.id}&content_type=awx.inventory`, { as: admin });
      assert.equal(seen.body.count, 1);
    });
  });
});
