import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { newOrg, newUser, type User } from './helpers/factories.ts';
import { provisionTenant } from './helpers/tenants.ts';

/**
 * Tenants (docs/tenants.md): provisioning validates everything first and makes the organization,
 * its admin, its default team and the usage row in one transaction; the tenant's shape; PATCH of
 * quota and branding; superusers only; the public branding lookup.
 */
describe('tenants: provisioning and changes', () => {
  let t: TestApp;
  let plain: User;
  let otherAdmin: User;
  let tenant: any;

  const count = async (table: string, where = 'true', params: unknown[] = []) =>
    (await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE ${where}`, params))[0].n;
  /** Everything a provisioning makes, counted: what a refused one must leave as it was. */
  const footprint = async () => [
    await count('organizations'), await count('users'), await count('teams'), await count('tenants'), await count('tenant_usage'), await count('role_users'),
  ];
  const fieldsOf = (res: { body: { errors: { field: string }[] } }) => res.body.errors.map((e) => e.field).sort();

  before(async () => {
    t = await createTestApp({}, { dispatcher: false });
    plain = await newUser(t);
    otherAdmin = await newUser(t, { admin: await newOrg(t, { name: 'Elsewhere' }) });
    tenant = await provisionTenant(t, {
      name: 'Acme', description: 'Acme Corp', admin_username: 'acme-admin',
      quota: { max_concurrent_jobs: 3, max_hosts: null }, branding: { primary_color: '#AABBCC', custom_domain: 'Portal.Acme.Example.' },
    });
  });
  after(async () => {
    await t?.close();
  });

  it('makes the organization, an admin who administers it, the default team and the usage row', async () => {
    assert.equal(tenant.type, 'tenant');
    assert.equal(tenant.url, `/api/v2/tenants/${tenant.id}/`);
    assert.deepEqual([tenant.name, tenant.description], ['Acme', 'Acme Corp']);
    const org = (await t.get(`/api/v2/organizations/${tenant.organization}/`)).body;
    assert.deepEqual([org.name, org.description], ['Acme', 'Acme Corp']);
    assert.deepEqual(tenant.summary_fields.organization, { id: org.id, name: 'Acme', description: 'Acme Corp' });
    assert.equal(tenant.summary_fields.admin_user.username, 'acme-admin');
    assert.equal(tenant.summary_fields.team.name, 'Acme Default Team');
    const team = (await t.get(`/api/v2/teams/${tenant.team}/`)).body;
    assert.equal(team.organization, org.id);
    const admins = (await t.get(`/api/v2/organizations/${org.id}/admins/`)).body.results.map((u: { id: number }) => u.id);
    const members = (await t.get(`/api/v2/organizations/${org.id}/users/`)).body.results.map((u: { id: number }) => u.id);
    assert.deepEqual([admins, members], [[tenant.admin_user], [tenant.admin_user]]);
    assert.equal((await t.get('/api/v2/users/acme-admin/')).body.email, 'acme-admin@example.com');
    assert.equal(await count('tenant_usage', 'tenant_id = $1', [tenant.id]), 1);
    // The generated password is answered once and lets the admin in; his organization is his to manage.
    assert.match(tenant.admin_password, /^[\w-]{20,}$/);
    const asAdmin = await t.get(`/api/v2/organizations/${org.id}/`, { as: tenant.admin });
    assert.equal(asAdmin.status, 200, asAdmin.text);
    assert.equal(asAdmin.body.summary_fields.user_capabilities.edit, true);
    const again = (await t.get(`/api/v2/tenants/${tenant.id}/`)).body;
    assert.equal(again.admin_password, undefined);
    assert.ok(!JSON.stringify((await t.get('/api/v2/activity_stream/?order_by=-id&page_size=50')).body).includes(tenant.admin_password), 'no password in the activity stream');
  });

  it('shows quota, usage, branding and its links as agreed', async () => {
    const body = (await t.get(`/api/v2/tenants/${tenant.id}/`)).body;
    assert.deepEqual(body.quota, { max_concurrent_jobs: 3, max_daily_launches: null, max_hosts: null, max_storage_mb: null });
    assert.deepEqual(Object.keys(body.usage).sort(), ['concurrent_jobs', 'daily_date', 'daily_launches', 'hosts', 'recalculated', 'storage_bytes', 'storage_mb']);
    assert.equal(body.usage.recalculated, null);
    assert.match(body.usage.daily_date, /^\d{4}-\d{2}-\d{2}$/);
    // Colours are kept lowercase, the domain without its case and trailing dot.
    assert.deepEqual(body.branding, { logo_url: '', primary_color: '#aabbcc', secondary_color: '', custom_domain: 'portal.acme.example', contact_email: '' });
    assert.deepEqual(
      [body.related.organization, body.related.admin_user, body.related.team, body.related.recalculate, body.related.quota_events],
      [`/api/v2/organizations/${tenant.organization}/`, `/api/v2/users/${tenant.admin_user}/`, `/api/v2/teams/${tenant.team}/`,
        `/api/v2/tenants/${tenant.id}/recalculate/`, `/api/v2/tenant_quota_events/?tenant=${tenant.id}`],
    );
    assert.ok(body.created && body.modified);
    const list = (await t.get('/api/v2/tenants/')).body;
    assert.equal(list.count, 1);
    assert.equal(list.results[0].id, tenant.id);
    assert.equal((await t.get(`/api/v2/tenants/?organization__name=Acme`)).body.count, 1);
    assert.equal((await t.get(`/api/v2/tenants/?organization__name=Nope`)).body.count, 0);
    assert.equal((await t.get(`/api/v2/tenants/?admin_user__username=acme-admin`)).body.count, 1);
    // Queries the list cannot answer are refused, never a 500.
    for (const query of ['?order_by=quota', '?quota=1', '?search=acme', '?order_by=-organization__name', '?page=9']) {
      const res = await t.get(`/api/v2/tenants/${query}`);
      assert.ok(res.status < 500, `${query}: ${res.status} ${res.text}`);
    }
  });

  it('is in the API root and described by OPTIONS, with the provisioning and change bodies', async () => {
    assert.equal((await t.get('/api/v2/')).body.tenants, '/api/v2/tenants/');
    assert.equal((await t.get('/api/v2/')).body.tenant_quota_events, '/api/v2/tenant_quota_events/');
    const list = (await t.request('OPTIONS', '/api/v2/tenants/')).body;
    assert.equal(list.name, 'Tenant List');
    assert.deepEqual(Object.keys(list.actions.POST).sort(), ['admin_email', 'admin_password', 'admin_username', 'branding', 'description', 'name', 'quota']);
    assert.equal(list.actions.POST.admin_username.required, true);
    for (const field of ['id', 'organization', 'admin_user', 'team', 'name', 'description', 'quota', 'usage', 'branding', 'created']) assert.ok(list.actions.GET[field], field);
    const detail = await t.request('OPTIONS', `/api/v2/tenants/${tenant.id}/`);
    assert.deepEqual(Object.keys(detail.body.actions.PATCH).sort(), ['branding', 'description', 'quota']);
    assert.match(String(detail.headers.allow), /PATCH, DELETE/);
  });

  it('refuses a bad body naming every bad field, and creates nothing', async () => {
    const before = await footprint();
    const res = await t.post('/api/v2/tenants/', {
      name: 'Acme', admin_username: 'bad name!', admin_email: 'not-an-email', admin_password: '',
      quota: { max_hosts: -1, max_concurrent_jobs: 2.5, max_daily_launches: '7', max_storage: 3 },
      branding: { logo_url: 'javascript:alert(1)', primary_color: 'red', secondary_color: '#12345', custom_domain: 'portal.acme.example', contact_email: 'x@' },
    });
    assert.equal(res.status, 400, res.text);
    assert.deepEqual(fieldsOf(res), [
      'admin_email', 'admin_password', 'admin_username', 'branding.contact_email', 'branding.custom_domain', 'branding.logo_url', 'branding.primary_color',
      'branding.secondary_color', 'name', 'quota.max_concurrent_jobs', 'quota.max_daily_launches', 'quota.max_hosts', 'quota.max_storage',
    ]);
    for (const error of res.body.errors) assert.ok(typeof error.message === 'string' && error.message.length > 5, JSON.stringify(error));
    assert.deepEqual(await footprint(), before);
  });

  it('refuses missing fields, a taken username, names and domains that are no host names, and bodies of the wrong shape', async () => {
    const before = await footprint();
    assert.deepEqual(fieldsOf(await t.post('/api/v2/tenants/', {})), ['admin_email', 'admin_username', 'name']);
    assert.deepEqual(fieldsOf(await t.post('/api/v2/tenants/', { name: 'Fresh', admin_username: 'acme-admin', admin_email: 'a@b.example' })), ['admin_username']);
    assert.deepEqual(fieldsOf(await t.post('/api/v2/tenants/', { name: 'Fresh', admin_username: 'fresh', admin_email: 'a@b.example', quota: [1] })), ['quota']);
    for (const domain of ['https://x.example', 'x.example:8443', 'a b.example', '-x.example', 'x.example/path', `${'a'.repeat(64)}.example`]) {
      const res = await t.post('/api/v2/tenants/', { name: 'Fresh', admin_username: 'fresh', admin_email: 'a@b.example', branding: { custom_domain: domain } });
      assert.deepEqual(fieldsOf(res), ['branding.custom_domain'], domain);
    }
    assert.deepEqual(fieldsOf(await t.post('/api/v2/tenants/', { name: 'x'.repeat(500), admin_username: 'fresh', admin_email: 'a@b.example' })), ['name']);
    assert.deepEqual(fieldsOf(await t.post('/api/v2/tenants/', { name: 7, admin_username: ['x'], admin_email: 'a@b.example' })), ['admin_username', 'name']);
    const list = await t.post('/api/v2/tenants/', ['name']);
    assert.equal(list.status, 400);
    assert.deepEqual(await footprint(), before);
  });

  it('keeps a given password as the admin\'s and does not answer it', async () => {
    const made = await provisionTenant(t, { name: 'Given', admin_password: 'Correct-Horse-7' });
    assert.equal(made.admin_password, undefined);
    assert.equal((await t.get('/api/v2/me/', { as: { username: made.admin.username, password: 'Correct-Horse-7' } })).status, 200);
  });

  it('leaves nothing behind when a write fails midway (a unique violation after the organization is made)', async () => {
    // The default team's insert fails on an index the test adds: the organization and the admin were made before it.
    const org = await newOrg(t, { name: 'Holder' });
    await t.db.exec(`CREATE UNIQUE INDEX test_team_names ON teams (name)`);
    try {
      await t.db.query('INSERT INTO teams (name, organization_id) VALUES ($1, $2)', ['Doomed Default Team', org.id]);
      const before = await footprint();
      const activity = await count('activity_stream');
      const res = await t.post('/api/v2/tenants/', { name: 'Doomed', admin_username: 'doomed-admin', admin_email: 'd@example.com' });
      assert.equal(res.status, 400, res.text);
      assert.ok(Array.isArray(res.body.errors) && res.body.errors.length > 0, res.text);
      assert.deepEqual(await footprint(), before);
      assert.equal(await count('organizations', 'name = $1', ['Doomed']), 0);
      assert.equal(await count('users', 'username = $1', ['doomed-admin']), 0);
      assert.equal(await count('activity_stream'), activity);
    } finally {
      await t.db.exec('DROP INDEX test_team_names');
    }
  });

  it('PATCH changes parts of quota and branding, records them in the activity stream, and refuses bad values whole', async () => {
    const url = `/api/v2/tenants/${tenant.id}/`;
    const res = await t.patch(url, { quota: { max_hosts: 50, max_concurrent_jobs: null }, branding: { logo_url: 'https://cdn.example/logo.png', contact_email: 'help@acme.example' }, description: 'New words' });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.quota, { max_concurrent_jobs: null, max_daily_launches: null, max_hosts: 50, max_storage_mb: null });
    assert.deepEqual(res.body.branding, { logo_url: 'https://cdn.example/logo.png', primary_color: '#aabbcc', secondary_color: '', custom_domain: 'portal.acme.example', contact_email: 'help@acme.example' });
    assert.equal(res.body.description, 'New words');
    const entries = (await t.get(`/api/v2/activity_stream/?object1=tenant&operation=update&order_by=-id`)).body.results;
    assert.ok(entries.length >= 1);
    assert.deepEqual(entries[0].changes.max_hosts, [null, 50]);
    assert.deepEqual(entries[0].changes.logo_url, ['', 'https://cdn.example/logo.png']);

    const before = (await t.get(url)).body;
    const bad = await t.patch(url, { quota: { max_hosts: 'many', max_storage_mb: -3 }, branding: { primary_color: '#12', custom_domain: 'has space.example' }, description: 5 });
    assert.equal(bad.status, 400);
    assert.deepEqual(fieldsOf(bad), ['branding.custom_domain', 'branding.primary_color', 'description', 'quota.max_hosts', 'quota.max_storage_mb']);
    const after = (await t.get(url)).body;
    assert.deepEqual([after.quota, after.branding, after.description, after.modified], [before.quota, before.branding, before.description, before.modified]);
    // A domain another tenant has is refused, one's own is kept.
    const other = await provisionTenant(t, { name: 'Other', branding: { custom_domain: 'other.example' } });
    assert.deepEqual(fieldsOf(await t.patch(url, { branding: { custom_domain: 'OTHER.example' } })), ['branding.custom_domain']);
    assert.equal((await t.patch(url, { branding: { custom_domain: 'portal.acme.example' } })).status, 200);
    assert.equal((await t.patch(`/api/v2/tenants/${other.id}/`, { branding: { custom_domain: '' } })).status, 200);
  });

  it('the branding lookup is public and normalises the host; a miss is 404', async () => {
    for (const host of ['portal.acme.example', 'PORTAL.Acme.Example', 'portal.acme.example:8443', 'portal.acme.example.']) {
      const res = await t.get(`/api/v2/branding/?host=${encodeURIComponent(host)}`, { as: null });
      assert.equal(res.status, 200, `${host}: ${res.text}`);
      assert.deepEqual(res.body, {
        tenant: tenant.id, organization: tenant.organization, name: 'Acme', logo_url: 'https://cdn.example/logo.png', primary_color: '#aabbcc',
        secondary_color: '', custom_domain: 'portal.acme.example', contact_email: 'help@acme.example',
      });
    }
    const miss = await t.get('/api/v2/branding/?host=unknown.example', { as: null });
    assert.equal(miss.status, 404);
    assert.equal(typeof miss.body.detail, 'string');
    assert.equal((await t.get('/api/v2/branding/?host=', { as: null })).status, 400);
    for (const host of ["x' OR 1=1 --", 'a'.repeat(5000), '%00', '[::1]:8013', '.', 'portal.acme.example..']) {
      assert.equal((await t.get(`/api/v2/branding/?host=${encodeURIComponent(host)}`, { as: null })).status, 404, host);
    }
    // Without ?host=, the request's own host.
    const own = await t.request('GET', '/api/v2/branding/', { as: null, headers: { host: 'portal.acme.example:8013' } });
    assert.equal(own.status, 200, own.text);
    // Credentials that do not check out do not matter to a public endpoint... but a session's CSRF does not apply to a GET either.
    assert.equal((await t.get('/api/v2/branding/?host=portal.acme.example', { as: plain })).status, 200);
  });

  it('a plain user and another organization\'s admin get 403 on every tenants endpoint, anonymous 401, and change nothing', async () => {
    const url = `/api/v2/tenants/${tenant.id}/`;
    const before = await footprint();
    const stored = (await t.get(url)).body;
    for (const who of [plain, otherAdmin, tenant.admin]) {
      const calls: [string, string, unknown?][] = [
        ['GET', '/api/v2/tenants/'], ['OPTIONS', '/api/v2/tenants/'], ['POST', '/api/v2/tenants/', { name: 'Evil', admin_username: 'evil', admin_email: 'e@example.com' }],
        ['GET', url], ['OPTIONS', url], ['PATCH', url, { quota: { max_hosts: 0 } }], ['DELETE', `${url}?confirm=true`],
        ['GET', `${url}recalculate/`], ['POST', `${url}recalculate/`],
      ];
      for (const [method, path, body] of calls) {
        const res = await t.request(method, path, { as: who, body });
        assert.equal(res.status, 403, `${who.username} ${method} ${path}: ${res.status} ${res.text}`);
      }
    }
    for (const [method, path] of [['GET', '/api/v2/tenants/'], ['POST', '/api/v2/tenants/'], ['GET', url], ['PATCH', url], ['DELETE', `${url}?confirm=true`], ['POST', `${url}recalculate/`]]) {
      assert.equal((await t.request(method, path, { as: null, body: method === 'GET' ? undefined : {} })).status, 401, `${method} ${path}`);
    }
    assert.deepEqual(await footprint(), before);
    assert.deepEqual((await t.get(url)).body.quota, stored.quota);
  });
});

describe('tenants: quota events', () => {
  let t: TestApp;
  let acme: any;
  let globex: any;
  let acmeAuditor: User;
  let plain: User;

  const insertEvent = async (tenant: any, fields: { kind: string; decision: string; created?: string; limit?: number; usage?: number }) => {
    await t.db.query(
      `INSERT INTO tenant_quota_events (tenant_id, organization_id, quota_kind, decision, quota_limit, usage, action, message, created)
       VALUES ($1, $2, $3, $4, $5, $6, 'launch job (manual)', $7, coalesce($8::timestamptz, now()))`,
      [tenant.id, tenant.organization, fields.kind, fields.decision, fields.limit ?? 3, fields.usage ?? 1, `${fields.kind} ${fields.decision}`, fields.created ?? null],
    );
  };
  const kinds = async (query: string, as?: User) => {
    const res = await t.get(`/api/v2/tenant_quota_events/${query}`, as ? { as } : {});
    assert.equal(res.status, 200, res.text);
    return res.body.results.map((e: { organization: number; quota_kind: string; decision: string }) => `${e.organization}:${e.quota_kind}:${e.decision}`).sort();
  };

  before(async () => {
    t = await createTestApp({}, { dispatcher: false });
    acme = await provisionTenant(t, { name: 'Acme' });
    globex = await provisionTenant(t, { name: 'Globex' });
    acmeAuditor = await newUser(t, { auditor: acme.organization });
    plain = await newUser(t, { member: acme.organization });
    await insertEvent(acme, { kind: 'max_concurrent_jobs', decision: 'allow' });
    await insertEvent(acme, { kind: 'max_concurrent_jobs', decision: 'deny', limit: 3, usage: 3 });
    await insertEvent(acme, { kind: 'max_hosts', decision: 'allow', created: '2020-01-01T00:00:00Z' });
    await insertEvent(globex, { kind: 'max_daily_launches', decision: 'deny' });
  });
  after(async () => {
    await t?.close();
  });

  it('shows each decision as agreed, newest first', async () => {
    const res = await t.get('/api/v2/tenant_quota_events/');
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.count, 4);
    const [first] = res.body.results;
    assert.deepEqual(
      Object.keys(first).filter((k) => !['related', 'summary_fields', 'url'].includes(k)).sort(),
      ['action', 'created', 'decision', 'id', 'limit', 'message', 'organization', 'quota_kind', 'tenant', 'type', 'unified_job', 'usage', 'user'],
    );
    assert.equal(first.type, 'tenant_quota_event');
    assert.equal(first.quota_kind, 'max_daily_launches');
    const deny = res.body.results.find((e: any) => e.organization === acme.organization && e.decision === 'deny');
    assert.deepEqual([deny.tenant, deny.limit, deny.usage, deny.unified_job, deny.user], [acme.id, 3, 3, null, null]);
  });

  it('filters by organization, quota kind, decision and since', async () => {
    assert.deepEqual(await kinds(`?organization=${globex.organization}`), [`${globex.organization}:max_daily_launches:deny`]);
    assert.deepEqual(await kinds('?quota_kind=max_concurrent_jobs&decision=deny'), [`${acme.organization}:max_concurrent_jobs:deny`]);
    assert.equal((await kinds('?since=2021-01-01')).length, 3);
    assert.equal((await kinds(`?tenant=${acme.id}`)).length, 3);
    assert.equal((await t.get('/api/v2/tenant_quota_events/?since=yesterday')).status, 400);
    assert.equal((await t.get('/api/v2/tenant_quota_events/?quota_kind=nope')).body.count ?? 0, 0);
  });

  it('an organization admin or auditor sees his tenant\'s own; others, and other tenants\' admins, see none of them', async () => {
    const own = (await kinds('', acme.admin));
    assert.equal(own.length, 3);
    assert.ok(own.every((k: string) => k.startsWith(`${acme.organization}:`)));
    assert.equal((await kinds('', acmeAuditor)).length, 3);
    assert.deepEqual(await kinds('', globex.admin), [`${globex.organization}:max_daily_launches:deny`]);
    assert.deepEqual(await kinds('', plain), []);
    assert.deepEqual(await kinds(`?organization=${acme.organization}`, globex.admin), []);
    const acmeEvent = (await t.get(`/api/v2/tenant_quota_events/?organization=${acme.organization}`)).body.results[0].id;
    assert.equal((await t.get(`/api/v2/tenant_quota_events/${acmeEvent}/`, { as: globex.admin })).status, 403);
    assert.equal((await t.get('/api/v2/tenant_quota_events/', { as: null })).status, 401);
  });

  it('is read-only', async () => {
    assert.equal((await t.post('/api/v2/tenant_quota_events/', { quota_kind: 'max_hosts' })).status, 405);
    const id = (await t.get('/api/v2/tenant_quota_events/')).body.results[0].id;
    assert.equal((await t.delete(`/api/v2/tenant_quota_events/${id}/`)).status, 405);
    assert.equal((await t.patch(`/api/v2/tenant_quota_events/${id}/`, { decision: 'allow' })).status, 405);
  });
});
