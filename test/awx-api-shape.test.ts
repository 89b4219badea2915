import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { makeRepository, type GitRepository } from './helpers/git.ts';
import { firstProjectUpdate, waitForRun } from './helpers/jobs.ts';

interface ShapeOfAwx {
  serializer: string;
  list: string;
  detail: string[];
  options_detail: string[];
  options_list: string[];
}
interface Differences {
  /** Keys Drover answers that AWX does not, each with the reason. */
  extra?: Record<string, string>;
  /** Keys AWX answers that Drover does not, each with the reason. */
  missing?: Record<string, string>;
}

const fixtures = path.join(import.meta.dirname, 'fixtures');
const awx: Record<string, ShapeOfAwx> = JSON.parse(readFileSync(path.join(fixtures, 'awx-24.6.1-api-shape.json'), 'utf8')).resources;
const differences: Record<string, Differences> = JSON.parse(readFileSync(path.join(fixtures, 'awx-api-shape-differences.json'), 'utf8')).resources;

const sorted = (keys: Iterable<string>) => [...keys].sort();
const minus = (a: readonly string[], b: readonly string[]) => sorted(a.filter((k) => !b.includes(k)));

/**
 * The keys of every detail and OPTIONS response are AWX 24.6.1's (test/fixtures, written from its
 * serializers), but for the differences test/fixtures/awx-api-shape-differences.json names with
 * their reasons (docs/awx-compatibility.md).
 */
describe('the API has the shape of AWX 24.6.1', () => {
  let t: TestApp;
  let repo: GitRepository;

  before(async () => {
    t = await createTestApp();
    repo = await makeRepository({ 'site.yml': '- hosts: all\n  gather_facts: false\n  tasks:\n    - debug: msg=shape\n', 'hosts.ini': 'sourced ansible_connection=local\n' });
    const org = (await t.post('/api/v2/organizations/', { name: 'Shape' })).body.id;
    await t.post('/api/v2/teams/', { name: 'shape team', organization: org });
    await t.post('/api/v2/labels/', { name: 'shape label', organization: org });
    await t.post('/api/v2/applications/', { name: 'shape app', organization: org, client_type: 'confidential', authorization_grant_type: 'password' });
    await t.post('/api/v2/tokens/', { description: 'shape token', scope: 'read' });
    await t.post('/api/v2/credential_types/', { name: 'shape type', kind: 'cloud', inputs: { fields: [{ id: 'token', type: 'string', label: 'Token', secret: true }] }, injectors: {} });
    const machine = (await t.get('/api/v2/credential_types/?namespace=ssh')).body.results[0].id;
    const credential = (await t.post('/api/v2/credentials/', { name: 'shape machine', organization: org, credential_type: machine, inputs: { username: 'u' } })).body.id;
    const project = (await t.post('/api/v2/projects/', { name: 'shape project', organization: org, scm_type: 'git', scm_url: `file://${repo.bare}` })).body.id;
    await firstProjectUpdate(t, project);
    const inventory = (await t.post('/api/v2/inventories/', { name: 'shape inventory', organization: org, variables: 'ansible_connection: local' })).body.id;
    await t.post('/api/v2/hosts/', { name: 'shape-host', inventory });
    await t.post('/api/v2/groups/', { name: 'shape_group', inventory });
    const source = (await t.post('/api/v2/inventory_sources/', { name: 'shape source', inventory, source: 'scm', source_project: project, source_path: 'hosts.ini' })).body.id;
    await waitForRun(t, (await t.post(`/api/v2/inventory_sources/${source}/update/`, {})).body.url);
    const template = (await t.post('/api/v2/job_templates/', { name: 'shape template', project, inventory, playbook: 'site.yml' })).body.id;
    await waitForRun(t, `/api/v2/jobs/${(await t.post(`/api/v2/job_templates/${template}/launch/`, {})).body.id}/`);
    const command = await t.post('/api/v2/ad_hoc_commands/', { inventory, credential, module_name: 'ping' });
    await waitForRun(t, `/api/v2/ad_hoc_commands/${command.body.id}/`);
  });
  after(async () => {
    await t?.close();
    await repo?.remove();
  });

  /** AWX lists host summaries only under their job (and host): the last job's. */
  const listOf = async (shape: ShapeOfAwx) => shape.list !== '/api/v2/job_host_summaries/' ? shape.list : `${(await latest('/api/v2/jobs/')).related.job_host_summaries}`;
  const latest = async (list: string) => {
    const page = await t.get(`${list}?order_by=-id&page_size=1`);
    assert.equal(page.status, 200, `${list}: ${page.text}`);
    assert.ok(page.body.results.length, `${list} has an object to compare`);
    return page.body.results[0];
  };

  for (const [resource, shape] of Object.entries(awx)) {
    it(`${resource}: detail keys`, async () => {
      const object = await latest(await listOf(shape));
      const detail = await t.get(object.url);
      assert.equal(detail.status, 200, detail.text);
      const keys = Object.keys(detail.body);
      const known = differences[resource] ?? {};
      assert.deepEqual(
        { missing: minus(shape.detail, keys), extra: minus(keys, shape.detail) },
        { missing: sorted(Object.keys(known.missing ?? {})), extra: sorted(Object.keys(known.extra ?? {})) },
      );
    });

    it(`${resource}: OPTIONS keys of the list and the detail`, async () => {
      const list = await listOf(shape);
      const object = await latest(list);
      const listOptions = await t.request('OPTIONS', list);
      const detailOptions = await t.request('OPTIONS', object.url);
      assert.deepEqual(sorted(Object.keys(listOptions.body)), sorted(shape.options_list), `OPTIONS ${list}`);
      assert.deepEqual(sorted(Object.keys(detailOptions.body)), sorted(shape.options_detail), `OPTIONS ${object.url}`);
    });
  }
});
