import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server, type Socket } from 'node:net';
import { Attribute, Change, Client } from 'ldapts';
import { basicAuth, createTestApp, newOrg, newUser, type TestApp, type User } from './helpers/app.ts';
import { startSlapd, type Slapd } from './helpers/slapd.ts';

const BASE = 'dc=example,dc=org';
const dn = (uid: string) => `uid=${uid},ou=people,${BASE}`;
const group = (cn: string) => `cn=${cn},ou=groups,${BASE}`;
const person = (uid: string, first: string, last: string, extra = '') =>
  `dn: ${dn(uid)}\nobjectClass: inetOrgPerson\nuid: ${uid}\ncn: ${first} ${last}\ngivenName: ${first}\nsn: ${last}\nmail: ${uid}@example.org\nuserPassword: ${uid}-ldap-pw\n${extra}`;
const groupOf = (cn: string, members: string[]) => `dn: ${group(cn)}\nobjectClass: groupOfNames\ncn: ${cn}\n${members.map((m) => `member: ${dn(m)}`).join('\n')}\n`;

const DIRECTORY = [
  `dn: ou=people,${BASE}\nobjectClass: organizationalUnit\nou: people\n`,
  `dn: ou=groups,${BASE}\nobjectClass: organizationalUnit\nou: groups\n`,
  person('alice', 'Alice', 'Smith'),
  person('bob', 'Bob', 'Jones'),
  person('carol', 'Carol', 'White'),
  person('dave', 'Dave', 'Brown'),
  person('erin', 'Erin', 'Ops'),
  person('shared', 'Shared', 'Name'),
  person('gail', 'Gail', 'Early'),
  groupOf('staff', ['alice', 'bob', 'carol', 'erin', 'shared', 'gail']),
  groupOf('engineers', ['alice', 'bob', 'erin']),
  groupOf('admins', ['alice']),
  groupOf('auditors', ['bob']),
  groupOf('denied', ['carol']),
  groupOf('ops', ['erin']),
].join('\n');

const BIND_PASSWORD = 'admin-secret';

describe('LDAP sign-in', () => {
  let t: TestApp;
  let slapd: Slapd;
  let second: Slapd;
  let plain: User;
  let orgAdmin: User;
  let auditor: User;

  const configure = async (values: Record<string, unknown>, slug = 'ldap') => {
    const res = await t.patch(`/api/v2/settings/${slug}/`, values);
    assert.equal(res.status, 200, res.text);
    return res;
  };
  const login = (username: string, password: string) => t.post('/api/login/', { username, password }, { as: null });
  const userNamed = async (username: string) => (await t.get(`/api/v2/users/?username=${username}`)).body.results[0];
  const namesOf = async (url: string) => (await t.get(url)).body.results.map((r: any) => r.name).sort();
  const lastAudit = async (type: string, username: string) =>
    (await t.get(`/api/v2/audit_events/?event_type=${type}&order_by=-id&page_size=50`)).body.results.find(
      (e: any) => e.actor_username === username || e.target_name === username,
    );
  const asDirectoryAdmin = async (fn: (c: Client) => Promise<void>) => {
    const c = new Client({ url: slapd.url });
    await c.bind(slapd.adminDn, slapd.adminPassword);
    try {
      await fn(c);
    } finally {
      await c.unbind();
    }
  };

  before(async () => {
    [t, slapd, second] = await Promise.all([
      createTestApp(),
      startSlapd(DIRECTORY),
      startSlapd(
        [
          `dn: ou=people,dc=second,dc=org\nobjectClass: organizationalUnit\nou: people\n`,
          `dn: uid=frank,ou=people,dc=second,dc=org\nobjectClass: inetOrgPerson\nuid: frank\ncn: Frank\nsn: Second\nuserPassword: frank-pw\n`,
          // Another person with alice's username, in another directory.
          `dn: uid=alice,ou=people,dc=second,dc=org\nobjectClass: inetOrgPerson\nuid: alice\ncn: Other Alice\nsn: Second\nuserPassword: second-alice-pw\n`,
        ].join('\n'),
        'dc=second,dc=org',
      ),
    ]);
    const org = await newOrg(t, { name: 'Elsewhere' });
    plain = await newUser(t, { username: 'plain' });
    orgAdmin = await newUser(t, { username: 'orgadmin', admin: org });
    auditor = await newUser(t, { username: 'auditor', is_system_auditor: true });
    await newUser(t, { username: 'shared', password: 'shared-local-pw' });
  });
  after(async () => {
    await t?.close();
    await Promise.all([slapd?.stop(), second?.stop()]);
  });

  describe('settings', () => {
    it('a superuser configures the ldap category; the bind password reads back $encrypted$', async () => {
      await configure({
        AUTH_LDAP_SERVER_URI: slapd.url,
        AUTH_LDAP_BIND_DN: slapd.adminDn,
        AUTH_LDAP_BIND_PASSWORD: BIND_PASSWORD,
        AUTH_LDAP_USER_SEARCH: [`ou=people,${BASE}`, 'SCOPE_SUBTREE', '(uid=%(user)s)'],
        AUTH_LDAP_USER_ATTR_MAP: { first_name: 'givenName', last_name: 'sn', email: 'mail' },
        AUTH_LDAP_GROUP_SEARCH: [`ou=groups,${BASE}`, 'SCOPE_SUBTREE', '(objectClass=groupOfNames)'],
        AUTH_LDAP_GROUP_TYPE: 'GroupOfNamesType',
        AUTH_LDAP_REQUIRE_GROUP: group('staff'),
        AUTH_LDAP_DENY_GROUP: group('denied'),
        AUTH_LDAP_USER_FLAGS_BY_GROUP: { is_superuser: [group('admins')], is_system_auditor: group('auditors') },
        AUTH_LDAP_ORGANIZATION_MAP: { Engineering: { users: [group('engineers')], admins: group('admins'), remove_users: true, remove_admins: true } },
        AUTH_LDAP_TEAM_MAP: { Ops: { organization: 'Engineering', users: group('ops'), remove: true } },
        AUTH_LDAP_CONNECTION_OPTIONS: { OPT_REFERRALS: 0, OPT_NETWORK_TIMEOUT: 2 },
      });
      const read = await t.get('/api/v2/settings/ldap/');
      assert.equal(read.body.AUTH_LDAP_BIND_PASSWORD, '$encrypted$');
      assert.equal(read.body.AUTH_LDAP_GROUP_TYPE, 'GroupOfNamesType');
      assert.ok(!read.text.includes(BIND_PASSWORD));
      const seen = await t.get('/api/v2/settings/ldap/', { as: auditor });
      assert.equal(seen.status, 200);
      assert.equal(seen.body.AUTH_LDAP_BIND_PASSWORD, '$encrypted$');
      const changes = await t.get('/api/v2/audit_events/?event_type=setting.changed');
      assert.ok(!changes.text.includes(BIND_PASSWORD), 'the bind password is never in the audit log');
      assert.ok(!(await t.get('/api/v2/activity_stream/?page_size=200')).text.includes(BIND_PASSWORD));
    });

    it('a plain user and an organization admin can neither read nor change them', async () => {
      for (const who of [plain, orgAdmin]) {
        assert.equal((await t.get('/api/v2/settings/ldap/', { as: who })).status, 403);
        assert.equal((await t.patch('/api/v2/settings/ldap/', { AUTH_LDAP_SERVER_URI: 'ldap://127.0.0.1:1' }, { as: who })).status, 403);
        assert.equal((await t.patch('/api/v2/settings/ldap1/', { AUTH_LDAP_1_ORGANIZATION_MAP: { X: { admins: true } } }, { as: who })).status, 403);
      }
      assert.equal((await t.patch('/api/v2/settings/ldap/', { AUTH_LDAP_SERVER_URI: 'ldap://127.0.0.1:1' }, { as: auditor })).status, 403);
      assert.equal((await t.get('/api/v2/settings/ldap/')).body.AUTH_LDAP_SERVER_URI, slapd.url);
    });

    it('malformed values are refused with 400 naming the setting, and nothing is stored', async () => {
      const bad: Record<string, unknown>[] = [
        { AUTH_LDAP_USER_SEARCH: [`ou=people,${BASE}`, 'SCOPE_SUBTREE', '(uid=alice)'] },
        { AUTH_LDAP_USER_SEARCH: [`ou=people,${BASE}`, 'SCOPE_EVERYWHERE', '(uid=%(user)s)'] },
        { AUTH_LDAP_SERVER_URI: 'http://127.0.0.1/' },
        { AUTH_LDAP_USER_DN_TEMPLATE: 'uid=fixed,dc=example,dc=org' },
        { AUTH_LDAP_GROUP_TYPE: 'MadeUpGroupType' },
        { AUTH_LDAP_ORGANIZATION_MAP: { Engineering: { users: 42 } } },
        { AUTH_LDAP_ORGANIZATION_MAP: { Engineering: { superusers: true } } },
        { AUTH_LDAP_TEAM_MAP: { Ops: { users: true } } },
        { AUTH_LDAP_USER_FLAGS_BY_GROUP: { is_god: group('admins') } },
        { AUTH_LDAP_CONNECTION_OPTIONS: { OPT_X_TLS_CACERTFILE: '/etc/passwd' } },
        { AUTH_LDAP_USER_ATTR_MAP: { is_superuser: 'mail' } },
      ];
      for (const body of bad) {
        const res = await t.patch('/api/v2/settings/ldap/', { ...body, AUTH_LDAP_START_TLS: true });
        assert.equal(res.status, 400, JSON.stringify(body));
        assert.ok(Object.keys(body)[0] in res.body, res.text);
      }
      assert.equal((await t.get('/api/v2/settings/ldap/')).body.AUTH_LDAP_START_TLS, false);
    });
  });

  describe('the login order', () => {
    it('binds, maps attributes, flags, organizations and teams, and starts a session', async () => {
      const res = await login('alice', 'alice-ldap-pw');
      assert.equal(res.status, 200, res.text);
      assert.ok(res.headers['set-cookie']);
      const alice = await userNamed('alice');
      assert.equal(alice.ldap_dn, dn('alice'));
      assert.deepEqual([alice.first_name, alice.last_name, alice.email], ['Alice', 'Smith', 'alice@example.org']);
      assert.equal(alice.is_superuser, true);
      assert.equal(alice.is_system_auditor, false);
      assert.deepEqual(await namesOf(`/api/v2/users/${alice.id}/organizations/`), ['Engineering']);
      assert.deepEqual(await namesOf(`/api/v2/users/${alice.id}/admin_of_organizations/`), ['Engineering']);
      const signedIn = await lastAudit('auth.external_login', 'alice');
      assert.deepEqual(signedIn.detail, { backend: 'ldap', source: 'ldap', uid: dn('alice'), created: true });
    });

    it('bob: system auditor by group, member but not admin; erin: the team map', async () => {
      assert.equal((await login('bob', 'bob-ldap-pw')).status, 200);
      const bob = await userNamed('bob');
      assert.equal(bob.is_system_auditor, true);
      assert.equal(bob.is_superuser, false);
      assert.deepEqual(await namesOf(`/api/v2/users/${bob.id}/admin_of_organizations/`), []);
      assert.deepEqual(await namesOf(`/api/v2/users/${bob.id}/teams/`), []);
      assert.equal((await login('erin', 'erin-ldap-pw')).status, 200);
      const erin = await userNamed('erin');
      assert.deepEqual(await namesOf(`/api/v2/users/${erin.id}/teams/`), ['Ops']);
    });

    it('a wrong password or an unknown user is refused with 401 and audited; nothing is created', async () => {
      const wrong = await login('alice', 'not-her-password');
      assert.equal(wrong.status, 401);
      assert.equal(wrong.body.detail, 'Invalid username or password.');
      assert.equal((await lastAudit('auth.login', 'alice')).outcome, 'failure');
      assert.equal((await login('nobody', 'whatever')).status, 401);
      assert.equal(await userNamed('nobody'), undefined);
    });

    it('filter and DN injection in the username finds nobody', async () => {
      for (const name of ['*', 'alice)(uid=*', 'al*', 'alice,ou=people']) {
        assert.equal((await login(name, 'alice-ldap-pw')).status, 401, name);
      }
    });

    it('the deny group and the require group refuse, with the reason audited', async () => {
      assert.equal((await login('carol', 'carol-ldap-pw')).status, 401);
      const carol = await t.get('/api/v2/audit_events/?event_type=auth.login&actor_username=carol&order_by=id');
      assert.ok(carol.body.results.some((e: any) => e.detail.reason === 'deny_group' && e.detail.backend === 'ldap'));
      assert.equal((await login('dave', 'dave-ldap-pw')).status, 401);
      const dave = await t.get('/api/v2/audit_events/?event_type=auth.login&actor_username=dave&order_by=id');
      assert.ok(dave.body.results.some((e: any) => e.detail.reason === 'require_group' && e.detail.backend === 'ldap'));
      assert.equal(await userNamed('carol'), undefined);
      assert.equal(await userNamed('dave'), undefined);
    });

    it('a local user of the same name keeps his own password; the directory password does not open his account', async () => {
      assert.equal((await login('shared', 'shared-ldap-pw')).status, 401);
      assert.equal((await login('shared', 'shared-local-pw')).status, 200);
      assert.equal((await userNamed('shared')).ldap_dn, '');
    });

    it('Basic authentication and the API work for an LDAP user', async () => {
      const me = await t.get('/api/v2/me/', { as: null, headers: { authorization: basicAuth({ username: 'bob', password: 'bob-ldap-pw' }) } });
      assert.equal(me.status, 200);
      assert.equal(me.body.results[0].username, 'bob');
    });

    it('an LDAP user cannot set a local password, nor create a token unless ALLOW_OAUTH2_FOR_EXTERNAL_USERS', async () => {
      const bob = await userNamed('bob');
      const pw = await t.patch(`/api/v2/users/${bob.id}/`, { password: 'local-Password-1' });
      assert.equal(pw.status, 400);
      assert.match(pw.body.password[0], /\(ldap\)/);
      const as = { as: null, headers: { authorization: basicAuth({ username: 'bob', password: 'bob-ldap-pw' }) } };
      const refused = await t.post('/api/v2/tokens/', { scope: 'read' }, as);
      assert.equal(refused.status, 403);
      assert.match(refused.body.detail, /external authentication provider \(ldap\)/);
      await configure({ ALLOW_OAUTH2_FOR_EXTERNAL_USERS: true }, 'authentication');
      assert.equal((await t.post('/api/v2/tokens/', { scope: 'read' }, as)).status, 201);
      await configure({ ALLOW_OAUTH2_FOR_EXTERNAL_USERS: false }, 'authentication');
    });

    it('remove_admins and remove_users take away what the groups no longer give; flags follow the groups', async () => {
      await asDirectoryAdmin(async (c) => {
        // groupOfNames needs a member: alice leaves admins (dave takes her place) and engineers.
        await c.modify(group('admins'), [
          new Change({ operation: 'add', modification: new Attribute({ type: 'member', values: [dn('dave')] }) }),
          new Change({ operation: 'delete', modification: new Attribute({ type: 'member', values: [dn('alice')] }) }),
        ]);
        await c.modify(group('engineers'), new Change({ operation: 'delete', modification: new Attribute({ type: 'member', values: [dn('alice')] }) }));
      });
      assert.equal((await login('alice', 'alice-ldap-pw')).status, 200);
      const alice = await userNamed('alice');
      assert.equal(alice.is_superuser, false);
      assert.deepEqual(await namesOf(`/api/v2/users/${alice.id}/organizations/`), []);
      assert.deepEqual(await namesOf(`/api/v2/users/${alice.id}/admin_of_organizations/`), []);
      const changes = (await t.get('/api/v2/audit_events/?event_type=auth.mapping_changed&target_name=alice&order_by=id')).body.results;
      assert.ok(changes.some((e: any) => e.detail.flag === 'is_superuser' && e.detail.value === false));
      assert.ok(changes.some((e: any) => e.detail.organization === 'Engineering' && e.detail.role === 'admin_role' && e.detail.granted === false));
    });
  });

  describe('more servers, templates and TLS', () => {
    it('a second server (AUTH_LDAP_1_*) is tried after the first', async () => {
      await configure(
        {
          AUTH_LDAP_1_SERVER_URI: second.url,
          AUTH_LDAP_1_USER_SEARCH: ['ou=people,dc=second,dc=org', 'SCOPE_ONELEVEL', '(uid=%(user)s)'],
          AUTH_LDAP_1_ORGANIZATION_MAP: { Second: { users: true } },
        },
        'ldap1',
      );
      assert.equal((await login('frank', 'frank-pw')).status, 200);
      const frank = await userNamed('frank');
      assert.equal(frank.ldap_dn, 'uid=frank,ou=people,dc=second,dc=org');
      assert.deepEqual(await namesOf(`/api/v2/users/${frank.id}/organizations/`), ['Second']);
    });

    it('the DN template replaces the search', async () => {
      await configure({ AUTH_LDAP_USER_DN_TEMPLATE: `uid=%(user)s,ou=people,${BASE}`, AUTH_LDAP_USER_SEARCH: [] });
      assert.equal((await login('erin', 'erin-ldap-pw')).status, 200);
      assert.equal((await login('erin', 'wrong')).status, 401);
      await configure({ AUTH_LDAP_USER_DN_TEMPLATE: '', AUTH_LDAP_USER_SEARCH: [`ou=people,${BASE}`, 'SCOPE_SUBTREE', '(uid=%(user)s)'] });
    });

    it('ldaps:// and Start TLS verify the certificate against the CA setting; an unknown certificate fails closed', async () => {
      await configure({ AUTH_LDAP_SERVER_URI: slapd.ldapsUrl, AUTH_LDAP_CA_CERTIFICATE: '' });
      const untrusted = await login('bob', 'bob-ldap-pw');
      assert.equal(untrusted.status, 503);
      assert.match(untrusted.body.detail, /LDAP server could not be reached/);
      await configure({ AUTH_LDAP_CA_CERTIFICATE: slapd.certificate });
      assert.equal((await login('bob', 'bob-ldap-pw')).status, 200);
      await configure({ AUTH_LDAP_SERVER_URI: slapd.url, AUTH_LDAP_START_TLS: true });
      assert.equal((await login('bob', 'bob-ldap-pw')).status, 200);
      await configure({ AUTH_LDAP_START_TLS: false });
    });

    it('an unreachable or silent server fails closed within the timeout, with a clear message', async () => {
      const sockets: Socket[] = [];
      const silent: Server = createServer((s) => sockets.push(s));
      await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
      const port = (silent.address() as { port: number }).port;
      try {
        await configure({ AUTH_LDAP_SERVER_URI: `ldap://127.0.0.1:${port}`, AUTH_LDAP_CONNECTION_OPTIONS: { OPT_NETWORK_TIMEOUT: 1 } });
        const started = Date.now();
        const res = await login('bob', 'bob-ldap-pw');
        assert.equal(res.status, 503);
        assert.match(res.body.detail, /^Sign-in failed: the LDAP server could not be reached/);
        assert.ok(Date.now() - started < 5000);
        assert.ok(!res.text.includes(BIND_PASSWORD));
        assert.equal((await lastAudit('auth.login', 'bob')).detail.reason, 'source_unavailable');
        // A local user is not held up by the directory.
        assert.equal((await login(plain.username, plain.password)).status, 200);
      } finally {
        for (const s of sockets) s.destroy();
        silent.close();
        await configure({ AUTH_LDAP_SERVER_URI: slapd.url, AUTH_LDAP_CONNECTION_OPTIONS: { OPT_NETWORK_TIMEOUT: 2 } });
      }
    });

    it('a refused service account fails closed too', async () => {
      await configure({ AUTH_LDAP_BIND_PASSWORD: 'wrong-bind' });
      assert.equal((await login('bob', 'bob-ldap-pw')).status, 503);
      await configure({ AUTH_LDAP_BIND_PASSWORD: BIND_PASSWORD });
      assert.equal((await login('bob', 'bob-ldap-pw')).status, 200);
    });
  });

  describe('users are linked by server and DN, not by username', () => {
    const secondAlice = 'uid=alice,ou=people,dc=second,dc=org';

    it("the second server's alice does not get the first one's account: 403 with the reason, audited as a conflict", async () => {
      const alice = await userNamed('alice');
      const res = await login('alice', 'second-alice-pw');
      assert.equal(res.status, 403, res.text);
      assert.match(res.body.detail, /username "alice" already belongs to another account/);
      assert.ok(!/svc_sessionid=[^;]+/.test(String(res.headers['set-cookie'] ?? '')), 'no session');
      const basic = await t.get('/api/v2/me/', { as: null, headers: { authorization: basicAuth({ username: 'alice', password: 'second-alice-pw' }) } });
      assert.equal(basic.status, 403);
      const conflicts = (await t.get('/api/v2/audit_events/?event_type=auth.identity_conflict&target_name=alice')).body.results;
      assert.ok(conflicts.length >= 2);
      assert.deepEqual(
        { outcome: conflicts[0].outcome, actor: conflicts[0].actor_username, target: conflicts[0].target_id, ...conflicts[0].detail },
        { outcome: 'denied', actor: 'alice', target: alice.id, backend: 'ldap', source: 'ldap1', subject: secondAlice, username: 'alice', holder: 'external' },
      );
      assert.ok(!JSON.stringify(conflicts).includes('second-alice-pw'));
      assert.equal((await lastAudit('auth.login', 'alice')).detail.reason, 'identity_conflict');
      const after = await userNamed('alice');
      assert.deepEqual([after.ldap_dn, after.last_name], [dn('alice'), 'Smith']);
      // Alice herself still signs in, through the first server.
      const own = await login('alice', 'alice-ldap-pw');
      assert.equal(own.status, 200);
      assert.equal(own.body.id, alice.id);
    });

    it('the same DN signs in again to the same user, also under a new username at the directory', async () => {
      const erin = await userNamed('erin');
      await asDirectoryAdmin((c) => c.modify(dn('erin'), new Change({ operation: 'add', modification: new Attribute({ type: 'uid', values: ['erin.ops'] }) })));
      const res = await login('erin.ops', 'erin-ldap-pw');
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.id, erin.id);
      assert.equal(res.body.username, 'erin');
      assert.equal(await userNamed('erin.ops'), undefined);
      const links = await t.db.query('SELECT source, subject FROM user_identities WHERE user_id = $1', [erin.id]);
      assert.deepEqual(links, [{ source: 'ldap', subject: dn('erin') }]);
    });

    it('a user signed in before links existed is linked by his recorded DN at his next sign-in', async () => {
      // What an earlier version stored: the DN in ldap_dn, no local password, no link.
      const [earlier] = await t.db.query(`INSERT INTO users (username, ldap_dn) VALUES ('gail', $1) RETURNING id`, [dn('gail')]);
      const res = await login('gail', 'gail-ldap-pw');
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.id, earlier.id);
      assert.deepEqual(await t.db.query('SELECT source, subject FROM user_identities WHERE user_id = $1', [earlier.id]), [{ source: 'ldap', subject: dn('gail') }]);
      assert.equal((await lastAudit('auth.external_login', 'gail')).detail.linked, true);
    });

    it('a local user of the same name is neither linked nor taken over', async () => {
      const shared = await userNamed('shared');
      assert.equal((await login('shared', 'shared-ldap-pw')).status, 401);
      assert.deepEqual(await t.db.query('SELECT 1 FROM user_identities WHERE user_id = $1', [shared.id]), []);
      assert.equal((await userNamed('shared')).ldap_dn, '');
    });
  });
});
