import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isSuperuser, objectsWithRole, seesEverything, type AccessPolicy } from '../src/api/access.ts';
import { CopyBody } from '../src/api/action-schemas.ts';
import { createObject, parseBody } from '../src/api/crud.ts';
import type { RouteModule } from '../src/api/extra-routes.ts';
import { ref, text } from '../src/api/fields.ts';
import { viewOptions } from '../src/api/options.ts';
import { objectPermission } from '../src/api/permissions.ts';
import { defineResource } from '../src/api/resource.ts';
import { routeMethods } from '../src/api/resource-routes.ts';
import { allows } from '../src/api/route-objects.ts';
import { validBody } from '../src/api/route-schemas.ts';
import { serializeRow } from '../src/api/serialize.ts';
import { isOrgAdmin } from '../src/resources/organizations/organization.resource.ts';
import { createTestApp, type Credentials, type TestApp } from './helpers/app.ts';
import { codeBlocks } from './helpers/docs.ts';

// Rows here are still read untyped: this file is not yet converted to its tables' generated row types
// (docs/architecture.md, "Typed rows"). Remove AnyRow once it is.
type AnyRow = any;

// The example of docs/adding-a-resource.md, as written there (only the import paths differ).

/** Readers of the organization see its bookmarks; its admins create, change and delete them. */
const bookmarkAccess: AccessPolicy<AnyRow> = {
  // SQL, never filtering in memory: lists and counts only ever hold what the caller may see.
  visible: (ctx, alias, params) =>
    seesEverything(ctx) ? null
      : `${alias}.organization_id IN (${objectsWithRole('organization', ['read_role'], params.add(ctx.user?.id ?? 0))})`,
  canCreate: (ctx, tx, values) => isSuperuser(ctx) || (typeof values.organization === 'number' && isOrgAdmin(ctx, tx, values.organization)),
  canChange: (ctx, tx, row) => isOrgAdmin(ctx, tx, row.organization_id),
  canDelete: (ctx, tx, row) => isOrgAdmin(ctx, tx, row.organization_id),
  canAttach: () => false,
  // Named by routes (bookmark-routes.ts): the framework checks them before the handler runs.
  actions: { copy: (ctx, tx, row) => isOrgAdmin(ctx, tx, row.organization_id) },
};

const bookmarks = defineResource<AnyRow>({
  name: 'bookmark',
  table: 'bookmarks',
  label: 'Bookmark List',
  description: 'Named links shared within an organization.',
  fields: {
    name: text({ required: true, maxLength: 512, allowBlank: false }),
    description: text(),
    link: text({ required: true, maxLength: 1024, pattern: /^https?:\/\//, patternMessage: 'Enter an http or https URL.' }),
    organization: ref('organization', { required: true, writeOnce: true }),
  },
  namedUrl: ['name', 'organization'],
  search: ['name', 'description'],
  ordering: 'name',
  unique: [['organization', 'name']],
  access: bookmarkAccess,
});

/** GET, POST /bookmarks/{id}/copy/: a copy under a new name in the same organization (AWX's copy/). */
const bookmarkRoutes: RouteModule = (app, services) => {
  const { db } = services;
  routeMethods<AnyRow>(app, `${bookmarks.listPath}:id/copy/`, objectPermission('bookmark', { POST: 'copy' }), {
    GET: async (request) => ({ can_copy: await allows(bookmarks, 'copy', request.ctx, db, request.object) }),
    POST: async (request, reply) => {
      const original = request.object;
      const { name } = validBody(request, CopyBody);
      const copied = { link: original.link, description: original.description, organization: original.organization_id };
      const values = parseBody(bookmarks, { ...copied, name }, 'create', null);
      const copy = await db.transaction((tx) => createObject<AnyRow>(tx, request.ctx, bookmarks, values));
      return reply.code(201).send(await serializeRow(db, request.ctx, bookmarks, copy));
    },
    OPTIONS: async () => viewOptions('Bookmark Copy', 'GET: whether you may copy the bookmark. POST {name}: copies it.'),
  }, {
    GET: { summary: 'Whether the bookmark can be copied' },
    POST: { summary: 'Copy the bookmark', body: CopyBody, checkBody: true },
  });
};

describe('adding a resource (docs/adding-a-resource.md)', () => {
  let t: TestApp;
  let org: number;
  let bookmark: number;
  let member: Credentials & { id: number };
  let admin: Credentials & { id: number };
  let outsider: Credentials & { id: number };

  before(async () => {
    // The resource listed as in RESOURCES, its routes as in ROUTES; the page's migration run as written.
    t = await createTestApp({}, { extraResources: [bookmarks], extraRoutes: [bookmarkRoutes] });
    const migrations = codeBlocks('adding-a-resource.md', 'sql');
    assert.equal(migrations.length, 1);
    await t.db.exec(migrations[0]);
    org = (await t.get('/api/v2/organizations/Default/')).body.id;
    member = await t.createUser('bookmark-member');
    admin = await t.createUser('bookmark-admin');
    outsider = await t.createUser('bookmark-outsider');
    assert.equal((await t.post(`/api/v2/organizations/${org}/users/`, { id: member.id })).status, 204);
    assert.equal((await t.post(`/api/v2/organizations/${org}/admins/`, { id: admin.id })).status, 204);
  });
  after(() => t?.close());

  it('the declaration alone gives the list, detail, named URL, search, uniqueness, OPTIONS, activity stream and API root entry', async () => {
    const made = await t.post('/api/v2/bookmarks/', { name: 'Runbook', link: 'https://example.com/runbook', organization: org });
    assert.equal(made.status, 201, made.text);
    bookmark = made.body.id;
    assert.equal(made.body.type, 'bookmark');
    assert.equal(made.body.url, `/api/v2/bookmarks/${bookmark}/`);
    assert.equal(made.body.summary_fields.organization.name, 'Default');
    assert.equal((await t.get('/api/v2/bookmarks/Runbook++Default/')).body.id, bookmark);
    assert.equal((await t.get('/api/v2/bookmarks/?search=runbook')).body.count, 1);
    const twice = await t.post('/api/v2/bookmarks/', { name: 'Runbook', link: 'https://example.com/other', organization: org });
    assert.equal(twice.status, 400, twice.text);
    const badUrl = await t.post('/api/v2/bookmarks/', { name: 'Local', link: 'file:///etc/passwd', organization: org });
    assert.deepEqual(badUrl.body, { link: ['Enter an http or https URL.'] });
    const elsewhere = (await t.post('/api/v2/organizations/', { name: 'Elsewhere' })).body.id;
    const moved = await t.patch(`/api/v2/bookmarks/${bookmark}/`, { organization: elsewhere });
    assert.deepEqual(moved.body, { organization: ['This field cannot be changed once set.'] });
    assert.equal((await t.request('OPTIONS', '/api/v2/bookmarks/')).body.name, 'Bookmark List');
    assert.equal((await t.get('/api/v2/')).body.bookmarks, '/api/v2/bookmarks/');
    const [{ n }] = await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM activity_stream WHERE object1 = 'bookmark' AND object1_id = $1 AND operation = 'create'`, [bookmark]);
    assert.equal(n, 1);
  });

  it('the access policy: readers of the organization see its bookmarks, only its admins write them', async () => {
    assert.equal((await t.get('/api/v2/bookmarks/', { as: outsider })).body.count, 0);
    assert.equal((await t.get(`/api/v2/bookmarks/${bookmark}/`, { as: outsider })).status, 403);
    assert.equal((await t.get('/api/v2/bookmarks/', { as: member })).body.count, 1);
    assert.equal((await t.post('/api/v2/bookmarks/', { name: 'Mine', link: 'https://example.com/', organization: org }, { as: member })).status, 403);
    assert.equal((await t.patch(`/api/v2/bookmarks/${bookmark}/`, { description: 'x' }, { as: member })).status, 403);
    const made = await t.post('/api/v2/bookmarks/', { name: 'Admin made', link: 'https://example.com/a', organization: org }, { as: admin });
    assert.equal(made.status, 201, made.text);
    assert.equal((await t.delete(`/api/v2/bookmarks/${made.body.id}/`, { as: admin })).status, 204);
  });

  it('the copy/ route: copies under a new name for those who may create one', async () => {
    assert.deepEqual((await t.get(`/api/v2/bookmarks/${bookmark}/copy/`)).body, { can_copy: true });
    assert.deepEqual((await t.get(`/api/v2/bookmarks/${bookmark}/copy/`, { as: member })).body, { can_copy: false });
    const copy = await t.post(`/api/v2/bookmarks/${bookmark}/copy/`, { name: 'Runbook (copy)' }, { as: admin });
    assert.equal(copy.status, 201, copy.text);
    assert.equal(copy.body.link, 'https://example.com/runbook');
    assert.equal(copy.body.organization, org);
    assert.deepEqual((await t.post(`/api/v2/bookmarks/${bookmark}/copy/`, {})).body, { name: ['This field is required.'] });
    assert.equal((await t.post(`/api/v2/bookmarks/${bookmark}/copy/`, { name: 'Not mine' }, { as: member })).status, 403);
    assert.equal((await t.post(`/api/v2/bookmarks/${bookmark}/copy/`, { name: 'Hidden' }, { as: outsider })).status, 403);
    assert.equal((await t.request('OPTIONS', `/api/v2/bookmarks/${bookmark}/copy/`)).body.name, 'Bookmark Copy');
    assert.equal((await t.delete(`/api/v2/bookmarks/${bookmark}/copy/`)).status, 405);
  });

  it('every route of the resource declares a permission', () => {
    const routes = t.app.routeTable.filter((r) => r.url.startsWith('/api/v2/bookmarks/'));
    assert.ok(routes.some((r) => r.url === '/api/v2/bookmarks/:id/copy/'));
    assert.deepEqual(routes.filter((r) => !r.permission).map((r) => r.url), []);
  });
});
