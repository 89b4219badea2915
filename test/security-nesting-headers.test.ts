import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, grant, newOrg, newUser, type Response, type TestApp, type User } from './helpers/app.ts';
import { deliver, pushHeaders } from './helpers/webhook-deliveries.ts';
import { scheduledTemplate } from './helpers/schedules.ts';
import { MAX_JSON_DEPTH } from '../src/db/json-depth.ts';

const nested = (depth: number, inner = '1') => `${'['.repeat(depth)}${inner}${']'.repeat(depth)}`;
const DEEP = nested(100_000);

describe('deeply nested values and the headers every answer carries', () => {
  let t: TestApp;
  let org: number;
  let member: User;
  let adminB: User;

  const count = async (table: string) => (await t.db.query(`SELECT count(*)::int AS n FROM ${table}`))[0].n as number;
  const assertTooDeep = (res: Response) => {
    assert.equal(res.status, 400, res.text);
    assert.match(res.body.detail, new RegExp(`nested deeper than ${MAX_JSON_DEPTH} levels`));
  };

  before(async () => {
    t = await createTestApp();
    org = (await newOrg(t)).id;
    member = await newUser(t);
    await grant(t, member, `/api/v2/organizations/${org}/`, 'member_role', 'inventory_admin_role');
    const orgB = (await newOrg(t)).id;
    adminB = await newUser(t);
    await grant(t, adminB, `/api/v2/organizations/${orgB}/`, 'admin_role');
  });
  after(() => t.close());

  it('answers a JSON body nested 100000 deep 400 on a resource POST, PATCH and the login, and stores nothing', async () => {
    const inventory = (await t.post('/api/v2/inventories/', { name: 'Nest', organization: org })).body.id;
    for (const who of [undefined, member, adminB]) {
      const before = await count('inventories');
      assertTooDeep(await t.request('POST', '/api/v2/inventories/', { as: who, payload: `{"name": "deep", "organization": ${org}, "variables": ${DEEP}}`, headers: { 'content-type': 'application/json' } }));
      assertTooDeep(await t.request('PATCH', `/api/v2/inventories/${inventory}/`, { as: who, payload: `{"description": ${DEEP}}`, headers: { 'content-type': 'application/json' } }));
      assert.equal(await count('inventories'), before);
    }
    assertTooDeep(await t.request('POST', '/api/login/', { as: null, payload: `{"username": ${DEEP}, "password": "x"}`, headers: { 'content-type': 'application/json' } }));
    // Strings holding brackets are not nesting.
    const fine = await t.post('/api/v2/inventories/', { name: 'Brackets', organization: org, description: '['.repeat(1000) });
    assert.equal(fine.status, 201, fine.text);
    // 64 levels are accepted, 65 are not.
    const deepest = await t.post('/api/v2/inventories/', { name: 'Deepest', organization: org, variables: JSON.parse(`{"a": ${nested(MAX_JSON_DEPTH - 2)}}`) });
    assert.equal(deepest.status, 201, deepest.text);
    assertTooDeep(await t.post('/api/v2/inventories/', { name: 'Too deep', organization: org, variables: JSON.parse(`{"a": ${nested(MAX_JSON_DEPTH)}}`) }));
  });

  it('refuses variables text nested too deep, as JSON or as YAML (flow, block and compact), naming the field', async () => {
    const block = Array.from({ length: 200 }, (_, i) => `${' '.repeat(i)}a:`).join('\n') + ' 1\n';
    for (const variables of [`{"a": ${DEEP}}`, `a: ${DEEP}`, block, `a:\n  ${'- '.repeat(200)}x\n`]) {
      for (const who of [undefined, member]) {
        const before = await count('inventories');
        const res = await t.post('/api/v2/inventories/', { name: `yaml-${before}`, organization: org, variables }, { as: who });
        assert.equal(res.status, 400, res.text);
        assert.deepEqual(res.body, { variables: ['Values nested deeper than 64 levels are not accepted.'] });
        assert.equal(await count('inventories'), before);
      }
    }
    const fine = await t.post('/api/v2/inventories/', { name: 'Flow', organization: org, variables: `a: ${nested(10)}\nb: "[[[["\nc: |\n  ${'['.repeat(200)}\n` });
    assert.equal(fine.status, 201, fine.text);
  });

  it('answers a signed template webhook delivery nested too deep 400 and launches nothing', async () => {
    const { template } = await scheduledTemplate(t, { webhook_service: 'github' });
    const key = (await t.get(`/api/v2/job_templates/${template.id}/webhook_key/`)).body.webhook_key as string;
    const body = `{"ref": "refs/heads/main", "x": ${DEEP}}`;
    const before = await count('unified_jobs');
    assertTooDeep(await deliver(t, template.id, 'github', body, pushHeaders('github', key, body, 'deep-1')));
    assert.equal(await count('unified_jobs'), before);
  });

  it('refuses a host filter with more than 200 operators 400, never overflowing', async () => {
    const filter = Array.from({ length: 50_000 }, (_, i) => `name=h${i}`).join(' or ');
    for (const host_filter of [filter, `${'not '.repeat(50_000)}name=a`, `${'('.repeat(50_000)}name=a${')'.repeat(50_000)}`]) {
      const res = await t.post('/api/v2/inventories/', { name: 'Smart', organization: org, kind: 'smart', host_filter });
      assert.equal(res.status, 400, res.text.slice(0, 300));
      assert.match(JSON.stringify(res.body), /more than 200 operators/);
    }
    const hosts = await t.get(`/api/v2/hosts/?host_filter=${encodeURIComponent(`${'not '.repeat(5000)}name=a`)}`);
    assert.equal(hosts.status, 400);
  });

  it('sends nosniff with every answer: API, errors, the console and its files', async () => {
    const answers = [
      await t.get('/api/v2/ping/', { as: null }),
      await t.get('/api/v2/organizations/'),
      await t.get('/api/v2/organizations/999999/'),
      await t.get('/api/v2/organizations/', { as: null }),
      await t.get('/api/v2/no-such-endpoint/'),
      await t.request('POST', '/api/v2/organizations/', { payload: '{not json', headers: { 'content-type': 'application/json' } }),
      await t.request('POST', '/api/v2/organizations/', { payload: `{"name": ${DEEP}}`, headers: { 'content-type': 'application/json' } }),
      await t.get('/'),
      await t.get('/jobs/3'),
      await t.get('/assets/no-such-file.js'),
    ];
    for (const res of answers) assert.equal(res.headers['x-content-type-options'], 'nosniff', `${res.status} ${res.text.slice(0, 80)}`);
  });

  it('serves the console with a strict Content-Security-Policy and refuses to be framed', async () => {
    const page = await t.request('GET', '/templates', { as: null, headers: { host: 'drover.example.com:8013' } });
    const policy = String(page.headers['content-security-policy']);
    const directives = new Map(policy.split(';').map((d) => d.trim().split(/\s+/)).map(([name, ...values]) => [name, values]));
    assert.deepEqual(directives.get('default-src'), ["'self'"]);
    assert.deepEqual(directives.get('script-src'), ["'self'"]);
    assert.deepEqual(directives.get('style-src'), ["'self'"]);
    assert.deepEqual(directives.get('object-src'), ["'none'"]);
    assert.deepEqual(directives.get('base-uri'), ["'self'"]);
    assert.deepEqual(directives.get('frame-ancestors'), ["'none'"]);
    assert.deepEqual(directives.get('img-src'), ["'self'", 'data:']);
    assert.deepEqual(directives.get('connect-src'), ["'self'", 'ws://drover.example.com:8013']);
    assert.ok(!policy.includes('unsafe'), policy);
    assert.equal(page.headers['x-frame-options'], 'DENY');
    // A Host header that is not a plain host adds nothing to the policy.
    const odd = await t.request('GET', '/templates', { as: null, headers: { host: "x; script-src 'unsafe-inline'" } });
    if (odd.headers['content-security-policy']) assert.ok(!String(odd.headers['content-security-policy']).includes('unsafe'));
  });
});
