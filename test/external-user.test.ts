import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import type { FastifyInstance } from 'fastify';
import type { Services } from '../src/api/context.ts';
import { PUBLIC } from '../src/api/permissions.ts';
import { routeMethods } from '../src/api/resource-routes.ts';
import { signInExternalUser, type ExternalIdentity } from '../src/auth/external/external-user.ts';
import { membershipsFromMaps, userMatcher, groupMatcher, decide } from '../src/auth/external/mapping.ts';
import { completeSsoLogin, failSsoLogin } from '../src/auth/external/sso-session.ts';
import type { SsoEntry } from '../src/auth/external/sso-methods.ts';
import { createTestApp, newOrg, newUser, setCookies, type TestApp } from './helpers/app.ts';

const client = { remoteAddr: '127.0.0.1', userAgent: 'test' };

/** A stand-in SSO callback: the protocol part is the test's, the rest is the shared core. */
const fakeSsoRoutes = (app: FastifyInstance, services: Services) => {
  routeMethods(app, '/sso/complete/fake/', PUBLIC, {
    GET: async (request, reply) => {
      const q = request.query as Record<string, string>;
      if (q.fail) return failSsoLogin(reply, 'The identity provider refused the sign-in.');
      return completeSsoLogin(services, request, reply, { backend: 'fake', uid: q.uid, username: q.username, email: q.email }, q.next);
    },
  });
};

describe('external users (the shared sign-in core)', () => {
  let t: TestApp;
  const signIn = (identity: ExternalIdentity) => signInExternalUser(t.services, identity, client);
  const userNamed = async (username: string) => (await t.get(`/api/v2/users/?username=${username}`)).body.results[0];
  const audits = async (type: string, username: string) =>
    (await t.get(`/api/v2/audit_events/?event_type=${type}&order_by=id&page_size=200`)).body.results.filter(
      (e: any) => e.actor_username === username || e.target_name === username,
    );

  // Stands for configured SAML and Google settings once a test turns it on: the entries their methods list.
  let standInEntries: (base: string) => Record<string, SsoEntry> = () => ({});
  before(async () => {
    t = await createTestApp({}, { extraRoutes: [fakeSsoRoutes], extraSsoMethods: [{ entries: (_services, base) => standInEntries(base) }] });
  });
  after(() => t.close());

  const ann = { backend: 'saml', source: 'saml:idp1', uid: 'ann-id' };

  it('creates the user on first sign-in, marked external, with no usable password', async () => {
    const user = await signIn({ ...ann, username: 'ann', email: 'ann@example.com', first_name: 'Ann', last_name: 'Lee' });
    const row = await userNamed('ann');
    assert.equal(row.id, user.id);
    assert.equal(row.external_account, 'saml');
    assert.equal(row.email, 'ann@example.com');
    assert.equal(row.first_name, 'Ann');
    assert.equal(row.is_superuser, false);
    const [stored] = await t.db.query('SELECT password FROM users WHERE id = $1', [user.id]);
    assert.equal(stored.password, '');
    const login = await t.post('/api/login/', { username: 'ann', password: '' }, { as: null });
    assert.equal(login.status, 400);
    const events = await audits('auth.external_login', 'ann');
    assert.equal(events.length, 1);
    assert.deepEqual(events[0].detail, { backend: 'saml', source: 'saml:idp1', uid: 'ann-id', created: true });
  });

  it('updates the profile on later sign-ins; an invalid email from the source is dropped', async () => {
    await signIn({ ...ann, username: 'ann', email: 'not an email', first_name: 'Annie' });
    const row = await userNamed('ann');
    assert.equal(row.first_name, 'Annie');
    assert.equal(row.email, '');
  });

  it('LDAP users keep their DN in ldap_dn', async () => {
    await signIn({ backend: 'ldap', uid: 'uid=lee,ou=people,dc=example,dc=org', username: 'lee' });
    const row = await userNamed('lee');
    assert.equal(row.ldap_dn, 'uid=lee,ou=people,dc=example,dc=org');
    assert.equal(row.external_account, null);
  });

  it('refuses a username that belongs to a local user or to another identity, and audits the conflict', async () => {
    await newUser(t, { username: 'localbob' });
    await assert.rejects(signIn({ backend: 'oidc', uid: 'sub-1', username: 'localbob' }), (err: any) => err.status === 403 && /already belongs to another account/.test(err.message));
    await assert.rejects(signIn({ backend: 'oidc', uid: 'sub-2', username: 'ann' }), /already belongs to another account/);
    // Another IdP of the same kind asserting ann's username, and ann's own IdP with another subject.
    await assert.rejects(signIn({ backend: 'saml', source: 'saml:idp2', uid: 'ann-id', username: 'ann' }), /already belongs to another account/);
    await assert.rejects(signIn({ backend: 'saml', source: 'saml:idp1', uid: 'someone-else', username: 'ann' }), /already belongs to another account/);
    const failures = await audits('auth.login', 'localbob');
    assert.ok(failures.some((e: any) => e.outcome === 'failure' && e.detail.reason === 'identity_conflict' && e.detail.backend === 'oidc'));
    const conflicts = (await t.get('/api/v2/audit_events/?event_type=auth.identity_conflict&order_by=id')).body.results;
    const localbob = await userNamed('localbob');
    assert.deepEqual(
      conflicts.map((e: any) => [e.outcome, e.actor_username, e.target_id, e.detail.source, e.detail.subject, e.detail.username, e.detail.holder]),
      [
        ['denied', 'localbob', localbob.id, 'oidc', 'sub-1', 'localbob', 'local'],
        ['denied', 'ann', (await userNamed('ann')).id, 'oidc', 'sub-2', 'ann', 'external'],
        ['denied', 'ann', (await userNamed('ann')).id, 'saml:idp2', 'ann-id', 'ann', 'external'],
        ['denied', 'ann', (await userNamed('ann')).id, 'saml:idp1', 'someone-else', 'ann', 'external'],
      ],
    );
    assert.equal(localbob.external_account, null);
    assert.equal((await userNamed('ann')).first_name, 'Annie', 'the account holding the name is left as it was');
    const links = await t.db.query(`SELECT source, subject FROM user_identities WHERE subject IN ('sub-1', 'sub-2', 'someone-else') OR source = 'saml:idp2'`);
    assert.deepEqual(links, [], 'a refused identity is linked to nobody');
  });

  it('the same subject reaches the same user, also after the source renames him; the local username stays', async () => {
    const first = await signIn({ ...ann, username: 'ann' });
    const renamed = await signIn({ ...ann, username: 'ann.lee', first_name: 'Ann L' });
    assert.equal(renamed.id, first.id);
    assert.equal(renamed.username, 'ann');
    assert.equal(await userNamed('ann.lee'), undefined);
    assert.equal((await userNamed('ann')).first_name, 'Ann L');
    // An administrator renames the user: the identity still reaches him.
    assert.equal((await t.patch(`/api/v2/users/${first.id}/`, { username: 'ann-renamed' })).status, 200);
    assert.equal((await signIn({ ...ann, username: 'ann' })).id, first.id);
    assert.equal(await userNamed('ann'), undefined, 'no second user was made under the old name');
    assert.equal((await t.patch(`/api/v2/users/${first.id}/`, { username: 'ann' })).status, 200);
  });

  it('once the name is freed, the refused identity gets a new user of its own', async () => {
    await newUser(t, { username: 'cleo' });
    await assert.rejects(signIn({ backend: 'github', uid: '4242', username: 'cleo' }), /already belongs/);
    const holder = await userNamed('cleo');
    assert.equal((await t.patch(`/api/v2/users/${holder.id}/`, { username: 'cleo-local' })).status, 200);
    const user = await signIn({ backend: 'github', uid: '4242', username: 'cleo' });
    assert.notEqual(user.id, holder.id);
    assert.equal((await userNamed('cleo')).external_account, 'github');
    assert.equal((await userNamed('cleo-local')).external_account, null);
  });

  it('refuses an identity without a subject', async () => {
    for (const uid of ['', '   ']) {
      await assert.rejects(signIn({ backend: 'oidc', uid, username: 'nobody-at-all' }), /did not say who the user is/);
    }
    assert.equal(await userNamed('nobody-at-all'), undefined);
  });

  it('two first sign-ins of one identity at once make one user', async () => {
    const identity = { backend: 'oidc', uid: 'twin-sub', username: 'twin' };
    const [a, b] = await Promise.all([signIn(identity), signIn(identity)]);
    assert.equal(a.id, b.id);
    assert.equal((await t.db.query(`SELECT count(*)::int AS n FROM user_identities WHERE subject = 'twin-sub'`))[0].n, 1);
  });

  it('createUsers false refuses an identity linked to no user, even with the username of a user of that backend', async () => {
    await signIn({ backend: 'github', uid: '777', username: 'gina' });
    await assert.rejects(signIn({ backend: 'github', uid: '778', username: 'gina', createUsers: false }), /new accounts are not created/);
    assert.ok(await signIn({ backend: 'github', uid: '777', username: 'gina', createUsers: false }));
  });

  it('refuses a disabled user and an invalid username', async () => {
    await t.db.query("UPDATE users SET is_active = false WHERE username = 'lee'");
    await assert.rejects(signIn({ backend: 'ldap', uid: 'uid=lee,ou=people,dc=example,dc=org', username: 'lee' }), /disabled/);
    await assert.rejects(signIn({ backend: 'ldap', uid: 'UID=Lee, ou=people,dc=example,dc=org', username: 'lee' }), /disabled/, 'the same DN written otherwise');
    await assert.rejects(signIn({ backend: 'saml', uid: 'x', username: 'has space' }), /not a valid username/);
    assert.equal((await t.get('/api/v2/users/?username=has%20space')).body.count, 0);
  });

  it('an external user cannot be given a local password (400) nor create a token unless allowed', async () => {
    const annRow = await userNamed('ann');
    const res = await t.patch(`/api/v2/users/${annRow.id}/`, { password: 'sneaky-Password-1' });
    assert.equal(res.status, 400);
    assert.match(res.body.password[0], /external authentication source \(saml\)/);
    const [stored] = await t.db.query('SELECT password FROM users WHERE id = $1', [annRow.id]);
    assert.equal(stored.password, '');
    const other = await t.patch(`/api/v2/users/${annRow.id}/`, { first_name: 'Ann B' });
    assert.equal(other.status, 200);
  });

  it('sets flags only when the identity says so, and audits the change', async () => {
    await signIn({ ...ann, username: 'ann', flags: { is_system_auditor: true } });
    let row = await userNamed('ann');
    assert.equal(row.is_system_auditor, true);
    assert.equal(row.is_superuser, false);
    await signIn({ ...ann, username: 'ann' });
    assert.equal((await userNamed('ann')).is_system_auditor, true);
    await signIn({ ...ann, username: 'ann', flags: { is_system_auditor: false } });
    row = await userNamed('ann');
    assert.equal(row.is_system_auditor, false);
    const changes = (await audits('auth.mapping_changed', 'ann')).filter((e: any) => e.detail.flag === 'is_system_auditor');
    assert.deepEqual(changes.map((e: any) => e.detail.value), [true, false]);
  });

  describe('maps', () => {
    const orgMap = {
      Engineering: { users: true, admins: ['boss', '/^chief.*/i'], remove_admins: true },
      Sales: { users: 'nobody-matches', remove_users: false },
      Support: { users: ['/.*@support\\.example$/'] },
    };
    const teamMap = { Ops: { organization: 'Engineering', users: ['/^op/'], remove: true } };

    it('decide follows AWX: true adds, a miss removes only when remove allows, null leaves alone', () => {
      const never = () => false;
      assert.equal(decide(true, never, true), true);
      assert.equal(decide(null, never, true), undefined);
      assert.equal(decide(undefined, never, true), undefined);
      assert.equal(decide(false, never, true), false);
      assert.equal(decide(false, never, false), undefined);
      assert.equal(decide('x', never, true), false);
      assert.equal(decide(['x', 'y'], (i) => i === 'y', false), true);
    });

    it('creates the named organizations and teams and grants what the maps say', async () => {
      const matches = userMatcher({ username: 'operator1', email: 'op@support.example' });
      await signIn({ backend: 'saml', uid: 'idp1:operator1', username: 'operator1', memberships: membershipsFromMaps(orgMap, teamMap, matches) });
      const user = await userNamed('operator1');
      const orgs = (await t.get(`/api/v2/users/${user.id}/organizations/`)).body.results.map((o: any) => o.name).sort();
      assert.deepEqual(orgs, ['Engineering', 'Support']);
      assert.equal((await t.get(`/api/v2/users/${user.id}/admin_of_organizations/`)).body.count, 0);
      const teams = (await t.get(`/api/v2/users/${user.id}/teams/`)).body.results.map((x: any) => x.name);
      assert.deepEqual(teams, ['Ops']);
      assert.equal((await t.get('/api/v2/organizations/?name=Sales')).body.count, 1, 'organizations named in the map exist');
      const changes = await audits('auth.mapping_changed', 'operator1');
      assert.ok(changes.some((e: any) => e.detail.organization === 'Engineering' && e.detail.role === 'member_role' && e.detail.granted === true));
      assert.ok(changes.some((e: any) => e.detail.team === 'Ops' && e.detail.granted === true));
    });

    it('admins by regex; remove takes away what no longer matches, remove_users false keeps it', async () => {
      const chief = { backend: 'saml', uid: 'idp1:chiefly', username: 'chiefly' };
      await signIn({ ...chief, memberships: membershipsFromMaps(orgMap, teamMap, userMatcher({ username: 'chiefly' })) });
      let user = await userNamed('chiefly');
      assert.equal((await t.get(`/api/v2/users/${user.id}/admin_of_organizations/`)).body.results[0].name, 'Engineering');
      // Granted by hand in Sales, which the map names with remove_users false: stays.
      const sales = (await t.get('/api/v2/organizations/?name=Sales')).body.results[0];
      assert.equal((await t.post(`/api/v2/organizations/${sales.id}/users/`, { id: user.id })).status, 204);
      const demoted = { Engineering: { users: true, admins: [], remove_admins: true }, Sales: orgMap.Sales };
      await signIn({ ...chief, memberships: membershipsFromMaps(demoted, {}, userMatcher({ username: 'chiefly' })) });
      user = await userNamed('chiefly');
      assert.equal((await t.get(`/api/v2/users/${user.id}/admin_of_organizations/`)).body.count, 0);
      const orgs = (await t.get(`/api/v2/users/${user.id}/organizations/`)).body.results.map((o: any) => o.name).sort();
      assert.deepEqual(orgs, ['Engineering', 'Sales']);
    });

    it('LDAP maps match group DNs whatever their case and spacing', () => {
      const matches = groupMatcher(['cn=Admins, ou=Groups,dc=example,dc=org']);
      assert.equal(matches('CN=admins,OU=groups, DC=example, DC=org'), true);
      assert.equal(matches('cn=users,ou=groups,dc=example,dc=org'), false);
    });

    it('a map cannot make anyone superuser: only flags do', async () => {
      const everyone = { Engineering: { users: true, admins: true } };
      await signIn({ backend: 'saml', uid: 'idp1:plain', username: 'plain', memberships: membershipsFromMaps(everyone, {}, userMatcher({ username: 'plain' })) });
      const row = await userNamed('plain');
      assert.equal(row.is_superuser, false);
      assert.equal(row.is_system_auditor, false);
    });
  });

  describe('finishing a browser sign-in', () => {
    it('starts a session and redirects to a safe next, never another site', async () => {
      const res = await t.get('/sso/complete/fake/?uid=f1&username=fiona&email=f@example.com&next=/jobs', { as: null });
      assert.equal(res.status, 302);
      assert.equal(res.headers.location, '/jobs');
      const cookies = setCookies(res);
      const session = cookies.get('svc_sessionid')?.value;
      assert.ok(session);
      assert.ok(cookies.get('csrftoken')?.value);
      const me = await t.get('/api/v2/me/', { as: null, headers: { cookie: `svc_sessionid=${session}` } });
      assert.equal(me.body.results[0].username, 'fiona');
      const evil = await t.get('/sso/complete/fake/?uid=f1&username=fiona&next=//evil.example/', { as: null });
      assert.equal(evil.headers.location, '/');
      const logins = await audits('auth.login', 'fiona');
      assert.ok(logins.some((e: any) => e.outcome === 'success' && e.detail.backend === 'fake'));
    });

    it('a refused sign-in goes back to the login page with the message, and no session', async () => {
      await newUser(t, { username: 'localfred' });
      const res = await t.get('/sso/complete/fake/?uid=f2&username=localfred', { as: null });
      assert.equal(res.status, 302);
      const location = new URL(res.headers.location as string, 'http://x');
      assert.equal(location.pathname, '/login');
      assert.match(location.searchParams.get('sso_error')!, /username "localfred" already belongs to another account/);
      assert.equal(setCookies(res).get('svc_sessionid'), undefined);
      const failed = await t.get('/sso/complete/fake/?fail=1', { as: null });
      assert.equal(new URL(failed.headers.location as string, 'http://x').searchParams.get('sso_error'), 'The identity provider refused the sign-in.');
    });
  });

  describe('users from before identity links', () => {
    const insertLegacy = async (username: string, columns: Record<string, string>) => {
      const names = Object.keys(columns);
      const [row] = await t.db.query(
        `INSERT INTO users (username, ${names.join(', ')}) VALUES ($1, ${names.map((_, i) => `$${i + 2}`).join(', ')}) RETURNING id`,
        [username, ...Object.values(columns)],
      );
      return row.id as number;
    };
    const oldLogin = (userId: number, username: string, detail: Record<string, unknown>) =>
      t.db.query(
        `INSERT INTO audit_events (event_type, target_type, target_id, target_name, detail) VALUES ('auth.external_login', 'user', $1, $2, $3::jsonb)`,
        [userId, username, JSON.stringify({ ...detail, created: false })],
      );
    const linksOf = async (userId: number) =>
      (await t.db.query('SELECT source, subject FROM user_identities WHERE user_id = $1 ORDER BY source, subject', [userId])).map((r) => `${r.source} ${r.subject}`);

    it('an LDAP user is linked at his next sign-in when his recorded DN is the one asserted, by whichever server', async () => {
      const olga = await insertLegacy('olga', { ldap_dn: 'uid=olga,ou=people,dc=example,dc=org' });
      await insertLegacy('oscar', { ldap_dn: 'uid=oscar,ou=people,dc=example,dc=org' });
      await assert.rejects(signIn({ backend: 'ldap', source: 'ldap2', uid: 'uid=oscar,ou=people,dc=other,dc=org', username: 'oscar' }), /already belongs/);
      assert.deepEqual(await linksOf((await userNamed('oscar')).id), []);
      // The same DN written otherwise, with a new username at the directory: still olga.
      const user = await signIn({ backend: 'ldap', source: 'ldap1', uid: 'UID=olga, ou=People,dc=example,dc=org', username: 'olga.k' });
      assert.equal(user.id, olga);
      assert.equal(user.username, 'olga');
      assert.deepEqual(await linksOf(olga), ['ldap1 uid=olga,ou=people,dc=example,dc=org']);
      const [event] = (await audits('auth.external_login', 'olga')).slice(-1);
      assert.deepEqual(event.detail, { backend: 'ldap', source: 'ldap1', uid: 'uid=olga,ou=people,dc=example,dc=org', created: false, linked: true });
      // Linked now: another server asserting the same DN is another identity.
      await assert.rejects(signIn({ backend: 'ldap', source: 'ldap3', uid: 'uid=olga,ou=people,dc=example,dc=org', username: 'olga' }), /already belongs/);
    });

    it('an LDAP user with a local password, or already linked, is never taken up that way', async () => {
      const pat = await insertLegacy('pat', { ldap_dn: 'uid=pat,ou=people,dc=example,dc=org', password: 'argon2-hash-stands-here' });
      await assert.rejects(signIn({ backend: 'ldap', uid: 'uid=pat,ou=people,dc=example,dc=org', username: 'pat' }), /already belongs/);
      assert.deepEqual(await linksOf(pat), []);
    });

    it('the migration links SAML, OIDC, social and RADIUS users from the audit log only where it is unambiguous', async () => {
      const saml = await insertLegacy('mig-saml', { external_account: 'saml' });
      await oldLogin(saml, 'mig-saml', { backend: 'saml', uid: 'corp:perm-1' });
      const radius = await insertLegacy('mig-radius', { external_account: 'radius' });
      await oldLogin(radius, 'mig-radius', { backend: 'radius', uid: 'mig-radius' });
      await oldLogin(radius, 'mig-radius', { backend: 'radius', uid: 'mig-radius' });
      // Two subjects signed in to one user (a takeover by username, as before links): neither is linked.
      const twice = await insertLegacy('mig-twice', { external_account: 'oidc' });
      await oldLogin(twice, 'mig-twice', { backend: 'oidc', uid: 'sub-a' });
      await oldLogin(twice, 'mig-twice', { backend: 'oidc', uid: 'sub-b' });
      // One subject on two users.
      const shareA = await insertLegacy('mig-share-a', { external_account: 'github' });
      const shareB = await insertLegacy('mig-share-b', { external_account: 'github' });
      await oldLogin(shareA, 'mig-share-a', { backend: 'github', uid: '9001' });
      await oldLogin(shareB, 'mig-share-b', { backend: 'github', uid: '9001' });
      // A local password, or a login of another backend than the user's own.
      const withPassword = await insertLegacy('mig-password', { external_account: 'oidc', password: 'argon2-hash-stands-here' });
      await oldLogin(withPassword, 'mig-password', { backend: 'oidc', uid: 'sub-p' });
      const otherBackend = await insertLegacy('mig-other', { external_account: 'oidc' });
      await oldLogin(otherBackend, 'mig-other', { backend: 'github', uid: '9002' });

      await t.db.exec(await readFile(new URL('../src/db/migrations/0032_user_identities.sql', import.meta.url), 'utf8'));

      assert.deepEqual(await linksOf(saml), ['saml:corp perm-1']);
      assert.deepEqual(await linksOf(radius), ['radius mig-radius']);
      for (const id of [twice, shareA, shareB, withPassword, otherBackend]) assert.deepEqual(await linksOf(id), [], String(id));
      assert.equal((await signIn({ backend: 'saml', source: 'saml:corp', uid: 'perm-1', username: 'mig-saml' })).id, saml);
      await assert.rejects(signIn({ backend: 'oidc', uid: 'sub-a', username: 'mig-twice' }), /already belongs/);
    });
  });

  describe('attacks on the link', () => {
    let org: { id: number };
    before(async () => {
      org = await newOrg(t, { name: 'Linked Org' });
    });

    it("an organization admin's local user named for an identity gets nothing from it", async () => {
      const orgAdmin = await newUser(t, { admin: org });
      const made = await t.post('/api/v2/users/', { username: 'hana', password: 'hana-local-pw' }, { as: orgAdmin });
      assert.equal(made.status, 201, made.text);
      await assert.rejects(signIn({ backend: 'oidc', uid: 'hana-sub', username: 'hana', email: 'hana@example.org', flags: { is_system_auditor: true } }), /already belongs/);
      const row = await userNamed('hana');
      assert.deepEqual([row.external_account, row.email, row.is_system_auditor], [null, '', false]);
      assert.deepEqual(await t.db.query(`SELECT 1 FROM user_identities WHERE subject = 'hana-sub'`), []);
      // The admin neither reads the conflict nor anything else of the audit log.
      assert.equal((await t.get('/api/v2/audit_events/?event_type=auth.identity_conflict', { as: orgAdmin })).status, 403);
    });

    it('a plain member who renames himself to an upcoming username does not receive that identity', async () => {
      const member = await newUser(t, { member: org });
      assert.equal((await t.patch(`/api/v2/users/${member.id}/`, { username: 'ivo' }, { as: member })).status, 200);
      await assert.rejects(signIn({ backend: 'saml', source: 'saml:idp1', uid: 'ivo-id', username: 'ivo', flags: { is_superuser: true } }), /already belongs/);
      const row = (await t.db.query('SELECT * FROM users WHERE id = $1', [member.id]))[0];
      assert.equal(row.is_superuser, false);
      assert.equal(row.external_account, null);
      assert.equal(row.username, 'ivo');
      assert.equal((await t.get('/api/v2/audit_events/', { as: { ...member, username: 'ivo' } })).status, 403);
      // A linked external user renaming himself keeps his own link and gains no other.
      const jo = await signIn({ backend: 'github', uid: 'jo-1', username: 'jo' });
      assert.equal((await t.patch(`/api/v2/users/${jo.id}/`, { username: 'jo-renamed' })).status, 200);
      await assert.rejects(signIn({ backend: 'github', uid: 'someone-else', username: 'jo-renamed' }), /already belongs/);
      assert.equal((await signIn({ backend: 'github', uid: 'jo-1', username: 'jo' })).id, jo.id);
    });
  });

  describe('GET /api/v2/auth/', () => {
    it('is public and empty while no browser method is configured', async () => {
      const res = await t.get('/api/v2/auth/', { as: null });
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, {});
    });

    it('lists what the methods enable, in AWX order, with absolute callbacks from SVC_URL_BASE', async () => {
      standInEntries = (base) => ({
        'saml:okta': { login_url: '/sso/login/saml/?idp=okta', complete_url: `${base}/sso/complete/saml/`, metadata_url: '/sso/metadata/saml/' },
        'google-oauth2': { login_url: '/sso/login/google-oauth2/', complete_url: `${base}/sso/complete/google-oauth2/` },
      });
      assert.equal((await t.patch('/api/v2/settings/system/', { SVC_URL_BASE: 'https://drover.example' })).status, 200);
      const res = await t.get('/api/v2/auth/', { as: null });
      assert.deepEqual(Object.keys(res.body), ['google-oauth2', 'saml:okta']);
      assert.equal(res.body['saml:okta'].complete_url, 'https://drover.example/sso/complete/saml/');
      assert.equal(res.body['saml:okta'].metadata_url, '/sso/metadata/saml/');
      standInEntries = () => ({});
    });
  });
});
