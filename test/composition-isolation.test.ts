import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isSuperuser, seesEverything } from '../src/api/access.ts';
import { ref, text } from '../src/api/fields.ts';
import { viewOptions } from '../src/api/options.ts';
import { objectPermission } from '../src/api/permissions.ts';
import { defineResource } from '../src/api/resource.ts';
import { routeMethods } from '../src/api/resource-routes.ts';
import type { RunRouteModule } from '../src/runs/run-services.ts';
import type { RunKind } from '../src/runs/run-kind.ts';
import { systemJobKind } from '../src/run-kinds/system-job/kind.ts';
import { createTestApp, type TestApp } from './helpers/app.ts';

// Rows here are still read untyped: this file is not yet converted to its tables' generated row types
// (docs/architecture.md, "Typed rows"). Remove AnyRow once it is.
type AnyRow = any;

// Each composition is a value of its own (docs/architecture.md, "Process-wide values"): what one app
// is composed of never shows in another app of the same process, whichever is built first.

const notes = defineResource<AnyRow>({
  name: 'isolation_note',
  table: 'isolation_notes',
  label: 'Isolation Note List',
  untracked: true,
  fields: {
    name: text({ required: true, maxLength: 128, allowBlank: false }),
    organization: ref('organization', { required: true }),
  },
  namedUrl: ['name', 'organization'],
  access: {
    visible: (ctx) => (seesEverything(ctx) ? null : 'false'),
    canCreate: (ctx) => isSuperuser(ctx),
    canChange: (ctx) => isSuperuser(ctx),
    canDelete: (ctx) => isSuperuser(ctx),
    canAttach: () => false,
  },
});

const NOTES_TABLE = `CREATE TABLE isolation_notes (
  id serial PRIMARY KEY,
  name text NOT NULL,
  organization_id integer NOT NULL REFERENCES organizations(id) ON DELETE CASCADE
)`;

const COUNT_URL = (org: number | string) => `/api/v2/organizations/${org}/isolation_note_count/`;

/** GET /organizations/{id}/isolation_note_count/: an extra endpoint, as a route module of the composition root. */
const noteCountRoutes: RunRouteModule = (app, services) => {
  routeMethods<AnyRow>(app, COUNT_URL(':id'), objectPermission('organization'), {
    GET: async (request) => {
      const [{ count }] = await services.db.query<{ count: number }>('SELECT count(*)::int AS count FROM isolation_notes WHERE organization_id = $1', [request.object.id]);
      return { count };
    },
    OPTIONS: async () => viewOptions('Isolation Note Count', 'GET: how many notes the organization has.'),
  });
};

async function withNotes(): Promise<TestApp> {
  const t = await createTestApp({}, { extraResources: [notes], extraRoutes: [noteCountRoutes] });
  await t.db.exec(NOTES_TABLE);
  return t;
}

const namedUrlFormats = async (t: TestApp) => (await t.get('/api/v2/settings/named-url/')).body.NAMED_URL_FORMATS as Record<string, string>;

/** The app composed with the note resource and route shows them everywhere it lists what it has. */
async function assertShowsNotes(t: TestApp): Promise<void> {
  assert.equal((await t.get('/api/v2/')).body.isolation_notes, '/api/v2/isolation_notes/');
  const options = await t.request('OPTIONS', '/api/v2/isolation_notes/');
  assert.equal(options.status, 200, options.text);
  assert.equal(options.body.name, 'Isolation Note List');
  const made = await t.post('/api/v2/isolation_notes/', { name: 'First', organization: 1 });
  assert.equal(made.status, 201, made.text);
  assert.equal(made.body.related.organization, '/api/v2/organizations/1/');
  assert.equal(made.body.related.named_url, '/api/v2/isolation_notes/First++Default/');
  assert.equal((await t.get(made.body.related.named_url)).body.id, made.body.id);
  const list = await t.get('/api/v2/isolation_notes/');
  assert.equal(list.status, 200, list.text);
  assert.equal(list.body.count, 1);
  assert.deepEqual((await t.get(COUNT_URL(1))).body, { count: 1 });
  assert.equal((await namedUrlFormats(t)).isolation_notes, '<name>++<organization.name>');
}

/** The app composed without them shows none of it, though another app of the process has them. */
async function assertKnowsNoNotes(t: TestApp): Promise<void> {
  const root = await t.get('/api/v2/');
  assert.equal(root.status, 200, root.text);
  assert.ok(root.body.organizations, 'the root lists the composition root\'s resources');
  assert.equal(root.body.isolation_notes, undefined, 'the API root lists no resource of another composition');
  assert.equal((await t.request('OPTIONS', '/api/v2/isolation_notes/')).status, 404);
  assert.equal((await t.get('/api/v2/isolation_notes/')).status, 404);
  assert.equal((await t.post('/api/v2/isolation_notes/', { name: 'Second', organization: 1 })).status, 404);
  assert.equal((await t.get(COUNT_URL(1))).status, 404);
  const formats = await namedUrlFormats(t);
  assert.ok(formats.organizations, 'the named URL formats list the composition root\'s resources');
  assert.equal(formats.isolation_notes, undefined, 'the named URL formats name no resource of another composition');
  const organization = (await t.get('/api/v2/organizations/1/')).body;
  assert.ok(!JSON.stringify(organization.related).includes('isolation'), 'related links name no resource of another composition');
}

describe('one composition does not leak into another app of the process', () => {
  describe('the app with an extra resource and route built first', () => {
    let extended: TestApp;
    let plain: TestApp;
    before(async () => {
      extended = await withNotes();
      plain = await createTestApp();
    });
    after(async () => {
      await plain?.close();
      await extended?.close();
    });

    it('the plain app built after it knows nothing of them', async () => {
      await assertKnowsNoNotes(plain);
    });

    it('the app with them still shows them', async () => {
      await assertShowsNotes(extended);
    });
  });

  describe('the plain app built first', () => {
    let plain: TestApp;
    let extended: TestApp;
    before(async () => {
      plain = await createTestApp();
      extended = await withNotes();
    });
    after(async () => {
      await extended?.close();
      await plain?.close();
    });

    it('the app with an extra resource and route shows them', async () => {
      await assertShowsNotes(extended);
    });

    it('the plain app built before it still knows nothing of them', async () => {
      await assertKnowsNoNotes(plain);
    });
  });
});

describe('the run kinds of one composition decide what its fields accept, in no other app of the process', () => {
  // The system job kind, composed in one app only with a policy facet: its templates become a resource type policies may name.
  const gatedSystemJobs: RunKind = { ...systemJobKind, policy: { resourceTypes: ['system_job_template'] } };
  let plain: TestApp;
  let gated: TestApp;
  before(async () => {
    plain = await createTestApp();
    gated = await createTestApp({}, { extraRunKinds: [gatedSystemJobs] });
  });
  after(async () => {
    await gated?.close();
    await plain?.close();
  });

  const appliesToChoices = async (t: TestApp) =>
    ((await t.request('OPTIONS', '/api/v2/policies/')).body.actions.POST.applies_to.choices as [string, string][]).map(([value]) => value);
  const policy = (name: string) => ({ name, organization: 1, rego_module: 'package drover.org_1.launch\n', package_path: 'drover.org_1.launch', applies_to: ['system_job_template'] });

  it('the app composed with the kind lists and accepts its resource type', async () => {
    assert.ok((await appliesToChoices(gated)).includes('system_job_template'));
    const made = await gated.post('/api/v2/policies/', policy('system jobs'));
    assert.equal(made.status, 201, made.text);
    assert.deepEqual(made.body.applies_to, ['system_job_template']);
  });

  it('the other app, built before it, neither lists nor accepts it, and stores nothing', async () => {
    const choices = await appliesToChoices(plain);
    assert.ok(choices.includes('job_template'), 'the composition root\'s kinds are listed');
    assert.ok(!choices.includes('system_job_template'));
    const refused = await plain.post('/api/v2/policies/', policy('system jobs'));
    assert.equal(refused.status, 400, refused.text);
    assert.match(String(refused.body.applies_to), /"system_job_template" is not a valid choice/);
    assert.equal((await plain.get('/api/v2/policies/?name=system+jobs')).body.count, 0);
  });
});
