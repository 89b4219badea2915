import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { text } from '../src/api/fields.ts';
import type { RouteModule } from '../src/api/extra-routes.ts';
import { PUBLIC } from '../src/api/permissions.ts';
import { routeMethods } from '../src/api/resource-routes.ts';
import { category, setting } from '../src/config/settings/types.ts';
import { createTestApp, type TestApp } from './helpers/app.ts';

// What one service is composed with (setting categories, CSRF exemptions, sign-in methods) is its own:
// a second service in the same process, composed without them, has none of it.

const extraCategory = category({
  slug: 'isolation_extra',
  name: 'Isolation Extra',
  settings: { ISOLATION_GREETING: setting<string>(text({ label: 'Greeting', default: 'hello' })) },
});

const PROBE_URL = '/api/v2/isolation_probe/';

/** The same endpoint in both services: exempt from CSRF in one only. */
const probeRoutes = (csrfExempt: boolean): RouteModule => (app) => {
  routeMethods(app, PROBE_URL, PUBLIC, { POST: async () => ({ received: true }) }, {}, csrfExempt ? { csrfExempt } : {});
};

const standInMethod = {
  entries: (_services: unknown, base: string) => ({ 'isolation-sso': { login_url: '/sso/login/isolation-sso/', complete_url: `${base}/sso/complete/isolation-sso/` } }),
};

describe('two services in one process', () => {
  let composed: TestApp;
  let plain: TestApp;

  before(async () => {
    composed = await createTestApp({}, { extraSettingCategories: [extraCategory], extraRoutes: [probeRoutes(true)], extraSsoMethods: [standInMethod] });
    plain = await createTestApp({}, { extraRoutes: [probeRoutes(false)] });
  });
  after(async () => {
    await composed.close();
    await plain.close();
  });

  it('a setting category is known only to the service composed with it', async () => {
    const own = await composed.get('/api/v2/settings/isolation_extra/');
    assert.equal(own.status, 200);
    assert.deepEqual(own.body, { ISOLATION_GREETING: 'hello' });
    assert.equal((await composed.patch('/api/v2/settings/isolation_extra/', { ISOLATION_GREETING: 'hi' })).status, 200);

    assert.equal((await plain.get('/api/v2/settings/isolation_extra/')).status, 404);
    const slugs = (await plain.get('/api/v2/settings/')).body.results.map((r: { slug: string }) => r.slug);
    assert.ok(!slugs.includes('isolation_extra'));
    assert.ok(!('ISOLATION_GREETING' in (await plain.get('/api/v2/settings/all/')).body));
    const refused = await plain.patch('/api/v2/settings/all/', { ISOLATION_GREETING: 'hi' });
    assert.equal(refused.status, 400);
    assert.deepEqual(refused.body, { ISOLATION_GREETING: ['Unknown setting.'] });
  });

  it('a CSRF exemption covers only the route that declares it', async () => {
    const inComposed = await composed.login();
    const exempt = await inComposed.post(PROBE_URL, {}, { csrf: false });
    assert.deepEqual([exempt.status, exempt.body], [200, { received: true }]);

    const inPlain = await plain.login();
    const checked = await inPlain.post(PROBE_URL, {}, { csrf: false });
    assert.deepEqual([checked.status, checked.body], [403, { detail: 'CSRF Failed: CSRF token missing.' }]);
    assert.equal((await inPlain.post(PROBE_URL, {})).status, 200, 'with its token the write passes');
  });

  it('a sign-in method is listed only by the service composed with it', async () => {
    assert.deepEqual(Object.keys((await composed.get('/api/v2/auth/', { as: null })).body), ['isolation-sso']);
    assert.deepEqual((await plain.get('/api/v2/auth/', { as: null })).body, {});
  });

  it('each service keeps its own in-memory caches', () => {
    assert.notEqual(composed.services.caches.passwords, plain.services.caches.passwords);
    assert.notEqual(composed.services.caches.receivingRules, plain.services.caches.receivingRules);
    assert.notEqual(composed.services.settings.registry, plain.services.settings.registry);
  });
});
