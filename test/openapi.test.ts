import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { VERSION } from '../src/version.ts';

type Operation = { requestBody?: { content: Record<string, { schema: Schema }> }; parameters?: { name: string; in: string }[]; tags?: string[]; security?: unknown[] };
type Schema = { type?: string; properties?: Record<string, Schema>; required?: string[]; anyOf?: Schema[] };

/** Fastify's /:id/ as OpenAPI's /{id}/ (and the assistant proxy's /assistant/* as /assistant/{path}). */
const openapiPath = (url: string) => url.replace(/:(\w+)/g, '{$1}').replace(/\/\*$/, '/{path}');

describe('OpenAPI document', () => {
  let t: TestApp;
  let doc: { openapi: string; info: { title: string; version: string }; paths: Record<string, Record<string, Operation>> };
  const bodyOf = (path: string, method: string) => doc.paths[path]?.[method]?.requestBody?.content['application/json']?.schema;

  before(async () => {
    t = await createTestApp();
    const res = await t.get('/api/v2/openapi.json');
    assert.equal(res.status, 200, res.text);
    doc = res.body;
  });
  after(() => t.close());

  it('is an OpenAPI 3 document named for the service', () => {
    assert.match(doc.openapi, /^3\.\d+\.\d+$/);
    assert.equal(doc.info.title, 'Drover REST API');
    assert.equal(doc.info.version, VERSION);
    assert.equal(typeof doc.paths, 'object');
    for (const [path, item] of Object.entries(doc.paths)) {
      assert.ok(path.startsWith('/'), path);
      for (const [method, operation] of Object.entries(item)) {
        assert.ok(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'].includes(method), `${method} ${path}`);
        assert.ok(operation && typeof operation === 'object' && 'responses' in operation, `${method} ${path} has responses`);
      }
    }
  });

  it('holds every registered route, and each method a route answers', () => {
    const missing: string[] = [];
    for (const route of t.app.routeTable) {
      const item = doc.paths[openapiPath(route.url)];
      if (!item) missing.push(route.url);
    }
    assert.deepEqual([...new Set(missing)], []);
    // Methods a route refuses (405) and HEAD are left out; those it answers are there.
    assert.deepEqual(Object.keys(doc.paths['/api/v2/organizations/']).sort(), ['get', 'options', 'post']);
    assert.deepEqual(Object.keys(doc.paths['/api/v2/organizations/{id}/']).sort(), ['delete', 'get', 'options', 'patch', 'put']);
    assert.deepEqual(Object.keys(doc.paths['/api/o/token/']).sort(), ['options', 'post']);
  });

  it('describes every resource from its field declarations: create bodies list their required fields', () => {
    let checked = 0;
    for (const resource of t.services.resources.all.filter((r) => r.topLevel)) {
      const list = doc.paths[resource.listPath];
      assert.ok(list?.get, resource.listPath);
      const query = (list.get.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name);
      for (const name of ['page', 'page_size', 'search', 'order_by']) assert.ok(query.includes(name), `${resource.listPath} ?${name}`);
      assert.ok(doc.paths[`${resource.listPath}{id}/`]?.get, `${resource.listPath}{id}/`);
      if (!resource.operations.create) continue;
      const body = bodyOf(resource.listPath, 'post');
      assert.ok(body, `POST ${resource.listPath}`);
      const required = Object.entries(resource.fields).filter(([, f]) => f.required && !f.readOnly).map(([name]) => name);
      assert.deepEqual([...(body.required ?? [])].sort(), required.sort(), `required fields of POST ${resource.listPath}`);
      for (const [name, field] of Object.entries(resource.fields)) assert.equal(name in body.properties!, !field.readOnly, `${resource.listPath} ${name}`);
      checked++;
    }
    assert.ok(checked > 15);
    const org = bodyOf('/api/v2/organizations/{id}/', 'patch');
    assert.equal(org?.required, undefined, 'PATCH requires nothing');
    assert.deepEqual(bodyOf('/api/v2/roles/{id}/users/', 'post')?.required, ['id']);
  });

  it('describes the bodies of actions', () => {
    const launch = bodyOf('/api/v2/job_templates/{id}/launch/', 'post');
    assert.ok(launch?.properties?.extra_vars && launch.properties.credential_passwords && launch.properties.inventory);
    assert.ok(bodyOf('/api/v2/jobs/{id}/relaunch/', 'post')?.properties?.hosts);
    assert.ok(bodyOf('/api/v2/job_templates/{id}/survey_spec/', 'post')?.properties?.spec);
    assert.deepEqual(bodyOf('/api/v2/credentials/{id}/copy/', 'post')?.required, ['name']);
    assert.ok(bodyOf('/api/v2/inventories/{id}/ad_hoc_commands/', 'post')?.properties?.module_name);
    assert.ok(bodyOf('/api/login/', 'post')?.properties?.username);
    assert.ok(doc.paths['/api/o/token/'].post.requestBody?.content['application/x-www-form-urlencoded']);
    assert.ok(bodyOf('/api/v2/settings/{slug}/', 'patch'));
  });

  it('groups operations by resource and marks the public ones', () => {
    assert.deepEqual(doc.paths['/api/v2/job_templates/{id}/launch/'].post.tags, ['job_templates']);
    assert.deepEqual(doc.paths['/api/v2/ping/'].get.security, []);
    assert.equal(doc.paths['/api/v2/me/'].get.security, undefined);
  });

  it('is for authenticated callers', async () => {
    assert.equal((await t.get('/api/v2/openapi.json', { as: null })).status, 401);
    const user = await t.createUser('openapi-reader');
    assert.equal((await t.get('/api/v2/openapi.json', { as: user })).status, 200);
  });
});

describe('a body checked by its route schema', () => {
  let t: TestApp;
  let credential: number;

  before(async () => {
    t = await createTestApp();
    const organization = (await t.get('/api/v2/organizations/Default/')).body.id;
    const scm = (await t.get('/api/v2/credential_types/?namespace=scm')).body.results[0].id;
    credential = (await t.post('/api/v2/credentials/', { name: 'schema-source', organization, credential_type: scm, inputs: { username: 'u' } })).body.id;
  });
  after(() => t.close());

  it('refuses a malformed body with 400 and AWX-style messages', async () => {
    const url = `/api/v2/credentials/${credential}/copy/`;
    assert.deepEqual((await t.post(url, {})).body, { name: ['This field is required.'] });
    assert.deepEqual((await t.post(url, { name: 7 })).body, { name: ['Not a valid string.'] });
    assert.deepEqual((await t.post(url, { name: '  ' })).body, { name: ['This field may not be blank.'] });
    assert.deepEqual((await t.post(url, { name: 'x'.repeat(513) })).body, { name: ['Ensure this field has no more than 512 characters.'] });
    const list = await t.post(url, ['name']);
    assert.equal(list.status, 400);
    assert.deepEqual(list.body, { detail: 'Invalid data. Expected a dictionary, but got list.' });
    const made = await t.post(url, { name: 'schema-copy' });
    assert.equal(made.status, 201, made.text);
    assert.equal(made.body.name, 'schema-copy');
  });

  it('checks permission before the body, as AWX does', async () => {
    const url = `/api/v2/credentials/${credential}/copy/`;
    assert.equal((await t.post(url, ['name'], { as: null })).status, 401);
    const stranger = await t.createUser('schema-stranger');
    assert.equal((await t.post(url, {}, { as: stranger })).status, 403);
  });
});
