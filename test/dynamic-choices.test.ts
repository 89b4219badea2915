// Dynamic survey choices: the dynamic_choices rules of a survey spec (job and workflow job templates),
// survey_spec/dynamic_choices/ with each source (db_query with the caller's RBAC, api_endpoint against a
// real HTTP server on 127.0.0.1 through the SSRF guard, jinja2 in the sandbox), the cache, and launches
// whose answers come from a source.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { grant, newOrg, newUser, type User } from './helpers/factories.ts';
import { makeRepository, type GitRepository } from './helpers/git.ts';
import { eventually, firstProjectUpdate } from './helpers/jobs.ts';
import { SECRET_STORES } from '../src/composition/root.ts';
import { reencryptAll } from '../src/secrets/rotation.ts';

interface Peer {
  base: string;
  hits: Map<string, number>;
  last: Map<string, { method: string; headers: http.IncomingHttpHeaders; body: string }>;
  close(): Promise<void>;
}

/** An HTTP server answering by path, counting each path's requests. */
async function startChoicesPeer(): Promise<Peer> {
  const hits = new Map<string, number>();
  const last = new Map<string, { method: string; headers: http.IncomingHttpHeaders; body: string }>();
  const json = (res: http.ServerResponse, status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const path = req.url!.split('?')[0];
      const count = (hits.get(path) ?? 0) + 1;
      hits.set(path, count);
      last.set(path, { method: req.method!, headers: req.headers, body });
      if (path === '/list' || path.startsWith('/counted')) return json(res, 200, ['a', 'b', 'a', 3, null]);
      if (path === '/nested') return json(res, 200, { data: { items: [{ meta: { name: 'x' } }, { meta: { name: 'y' } }, { meta: {} }] } });
      if (path === '/post') return json(res, 200, ['posted']);
      if (path === '/fail') return json(res, 500, { detail: 'boom' });
      if (path === '/flaky') return count === 1 ? json(res, 503, {}) : json(res, 200, ['recovered']);
      if (path === '/text') return res.writeHead(200, { 'content-type': 'text/plain' }).end('not json');
      if (path === '/object') return json(res, 200, { items: 'nope' });
      if (path === '/many') return json(res, 200, Array.from({ length: 600 }, (_, i) => `item-${i}`));
      if (path === '/redirect') return res.writeHead(302, { location: `http://127.0.0.2:${(server.address() as AddressInfo).port}/list` }).end();
      if (path === '/slow') return; // never answers: the source's timeout ends the request
      json(res, 404, {});
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits,
    last,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

const question = (variable: string, fields: Record<string, unknown> = {}) => ({ question_name: variable, required: false, type: 'multiplechoice', variable, ...fields });
const dynamic = (variable: string, source: Record<string, unknown>, fields: Record<string, unknown> = {}) =>
  question(variable, { dynamic_choices: { enabled: true, ...source }, ...fields });
const survey = (...questions: unknown[]) => ({ name: 'S', description: '', spec: questions });

describe('dynamic survey choices', () => {
  let t: TestApp;
  let peer: Peer;
  let repo: GitRepository;
  let org: number;
  let jt: number;
  let wfjt: number;
  let executor: User;
  let member: User;
  let reader: User;
  let otherAdmin: User;
  let serial = 0;
  const bases = () => [['job template', `/api/v2/job_templates/${jt}/`], ['workflow job template', `/api/v2/workflow_job_templates/${wfjt}/`]] as const;

  const setSurvey = async (base: string, ...questions: unknown[]) => {
    const res = await t.post(`${base}survey_spec/`, survey(...questions));
    assert.equal(res.status, 200, res.text);
  };
  const choices = async (base: string, body: unknown = {}, as?: User) => {
    const res = await t.post(`${base}survey_spec/dynamic_choices/`, body, { as });
    assert.equal(res.status, 200, res.text);
    return res.body;
  };
  /** One dynamic question on `base`, resolved: its {choices, source_type, error?}. */
  const resolveOne = async (base: string, source: Record<string, unknown>, as?: User) => {
    const variable = `v${++serial}`;
    await setSurvey(base, dynamic(variable, source));
    return (await choices(base, { variables: [variable] }, as))[variable];
  };
  const api = (path: string, extra: Record<string, unknown> = {}) => ({ source_type: 'api_endpoint', url: `${peer.base}${path}`, ...extra });

  before(async () => {
    t = await createTestApp();
    peer = await startChoicesPeer();
    assert.equal((await t.patch('/api/v2/settings/security/', { OUTBOUND_URL_ALLOWLIST: ['127.0.0.1'] })).status, 200);
    org = (await newOrg(t)).id;
    const other = (await newOrg(t)).id;
    const created = async (url: string, body: Record<string, unknown>) => {
      const res = await t.post(url, body);
      assert.equal(res.status, 201, `${url}: ${res.text}`);
      return res.body.id as number;
    };
    const inventory = await created('/api/v2/inventories/', { name: 'main', organization: org });
    const spare = await created('/api/v2/inventories/', { name: 'spare', organization: org });
    const foreign = await created('/api/v2/inventories/', { name: 'foreign', organization: other });
    for (const name of ['beta', 'alpha']) await created('/api/v2/hosts/', { name, inventory });
    await created('/api/v2/hosts/', { name: 'gamma', inventory: spare });
    await created('/api/v2/hosts/', { name: 'secret-host', inventory: foreign });
    for (const name of ['web', 'db']) await created('/api/v2/groups/', { name, inventory });
    const machine = (await t.db.query(`SELECT id FROM credential_types WHERE namespace = 'ssh'`))[0].id;
    const shown = await created('/api/v2/credentials/', { name: 'cred-shown', organization: org, credential_type: machine, inputs: { username: 'u', password: 'hunter2' } });
    await created('/api/v2/credentials/', { name: 'cred-hidden', organization: org, credential_type: machine, inputs: { username: 'u' } });
    repo = await makeRepository({ 'site.yml': '- hosts: all\n  gather_facts: false\n  tasks: []\n' });
    const project = await created('/api/v2/projects/', { name: 'plays', organization: org, scm_type: 'git', scm_url: `file://${repo.bare}` });
    await firstProjectUpdate(t, project);
    jt = await created('/api/v2/job_templates/', { name: 'dyn-jt', project, inventory, playbook: 'site.yml' });
    wfjt = await created('/api/v2/workflow_job_templates/', { name: 'dyn-wf', organization: org, inventory });
    executor = await newUser(t, { member: org });
    await grant(t, executor, `/api/v2/job_templates/${jt}/`, 'execute_role');
    await grant(t, executor, `/api/v2/workflow_job_templates/${wfjt}/`, 'execute_role');
    await grant(t, executor, `/api/v2/inventories/${spare}/`, 'read_role');
    await grant(t, executor, `/api/v2/credentials/${shown}/`, 'read_role');
    member = await newUser(t, { member: org });
    reader = await newUser(t, { member: org });
    await grant(t, reader, `/api/v2/job_templates/${jt}/`, 'read_role');
    await grant(t, reader, `/api/v2/workflow_job_templates/${wfjt}/`, 'read_role');
    otherAdmin = await newUser(t, { admin: other });
  });
  after(async () => {
    await t.close();
    await peer.close();
    await repo.remove();
  });

  describe('survey spec validation', () => {
    const refused: [string, unknown, RegExp][] = [
      ['on a text question (rule 1)', question('q', { type: 'text', dynamic_choices: { enabled: true, source_type: 'jinja2', template: '[]' } }), /'dynamic_choices' in survey question 0 \('q'\) is only allowed on multiplechoice and multiselect/],
      ['not an object', question('q', { dynamic_choices: 'db_query' }), /must be an object/],
      ['enabled missing', question('q', { choices: ['a'], dynamic_choices: { source_type: 'jinja2', template: '[]' } }), /enabled must be true or false/],
      ['an unknown source type (rule 4)', dynamic('q', { source_type: 'sql' }), /\('q'\): source_type must be one of db_query, api_endpoint, jinja2/],
      ['no source type (rule 4)', dynamic('q', {}), /source_type must be one of/],
      ['a model outside the list (rule 5)', dynamic('q', { source_type: 'db_query', model: 'users' }), /model must be one of hosts, groups/],
      ['a field outside the list (rule 5)', dynamic('q', { source_type: 'db_query', model: 'credentials', field: 'inputs' }), /field must be one of name, id, description/],
      ['a filter on secret inputs', dynamic('q', { source_type: 'db_query', model: 'credentials', filter: { inputs__icontains: 'pass' } }), /filter key 'inputs__icontains' is not allowed/],
      ['a filter through a relation', dynamic('q', { source_type: 'db_query', model: 'hosts', filter: { inventory__organization__name: 'x' } }), /filter key 'inventory__organization__name' is not allowed/],
      ['a filter following credentials', dynamic('q', { source_type: 'db_query', model: 'projects', filter: { credential__inputs: 'x' } }), /filter key 'credential__inputs' is not allowed/],
      ['an unknown lookup', dynamic('q', { source_type: 'db_query', model: 'hosts', filter: { name__regex: '.*' } }), /name takes the lookups/],
      ['a negated filter', dynamic('q', { source_type: 'db_query', model: 'hosts', filter: { not__name: 'a' } }), /'not__name' is not allowed/],
      ['an id filter that is not an id', dynamic('q', { source_type: 'db_query', model: 'hosts', filter: { inventory__id: 'x' } }), /must be an id/],
      ['a filter value that is an object', dynamic('q', { source_type: 'db_query', model: 'hosts', filter: { name: { $ne: 1 } } }), /must be a string, a number or a boolean/],
      ['an empty url (rule 6)', dynamic('q', { source_type: 'api_endpoint', url: '' }), /url is required/],
      ['a file url', dynamic('q', { source_type: 'api_endpoint', url: 'file:///etc/passwd' }), /http or https URL/],
      ['a PUT', dynamic('q', { source_type: 'api_endpoint', url: 'https://example.com', method: 'PUT' }), /method must be GET or POST/],
      ['a header that is not a string', dynamic('q', { source_type: 'api_endpoint', url: 'https://example.com', headers: { 'X-N': 1 } }), /header 'X-N' must have a string value/],
      ['a header with a line break', dynamic('q', { source_type: 'api_endpoint', url: 'https://example.com', headers: { 'X-N': 'a\r\nHost: evil' } }), /line breaks/],
      ['a zero timeout', dynamic('q', { source_type: 'api_endpoint', url: 'https://example.com', timeout: 0 }), /timeout must be a whole number of seconds from 1 to 60/],
      ['a huge timeout', dynamic('q', { source_type: 'api_endpoint', url: 'https://example.com', timeout: 3600 }), /timeout must be/],
      ['a bad json_path', dynamic('q', { source_type: 'api_endpoint', url: 'https://example.com', json_path: 'a..b' }), /json_path must be a dot-separated path/],
      ['a setting of another source', dynamic('q', { source_type: 'api_endpoint', url: 'https://example.com', template: '[]' }), /'template' is not a setting of a api_endpoint source/],
      ['an empty template (rule 6)', dynamic('q', { source_type: 'jinja2', template: ' ' }), /template is required/],
      ['a template that does not parse', dynamic('q', { source_type: 'jinja2', template: '{% if %}' }), /template does not parse/],
      ['a negative cache_ttl (rule 7)', dynamic('q', { source_type: 'jinja2', template: '[]', cache_ttl: -1 }), /cache_ttl must be a whole number of seconds/],
      ['a fractional cache_ttl (rule 7)', dynamic('q', { source_type: 'jinja2', template: '[]', cache_ttl: 1.5 }), /cache_ttl must be/],
      ['a text cache_ttl (rule 7)', dynamic('q', { source_type: 'jinja2', template: '[]', cache_ttl: '60' }), /cache_ttl must be/],
      ['static choices missing when disabled', question('q', { dynamic_choices: { enabled: false } }), /'choices'/],
    ];

    it('refuses each broken dynamic_choices with a 400 naming the question, on both kinds of template, storing nothing', async () => {
      for (const [, base] of bases()) {
        await setSurvey(base, question('kept', { choices: ['x'] }));
        const table = base.includes('workflow') ? 'workflow_job_templates' : 'job_templates';
        const stored = async () => (await t.db.query(`SELECT survey_spec FROM ${table} WHERE id = $1`, [base.includes('workflow') ? wfjt : jt]))[0].survey_spec;
        const before = await stored();
        for (const [what, q, message] of refused) {
          const res = await t.post(`${base}survey_spec/`, survey(q));
          assert.equal(res.status, 400, `${base}: ${what}: ${res.text}`);
          assert.match(res.body.error, message, what);
          assert.match(res.body.error, /survey question 0/, what);
        }
        assert.deepEqual(await stored(), before);
      }
    });

    it('accepts a dynamic question without static choices (rule 2), with defaults only type-checked', async () => {
      for (const [, base] of bases()) {
        const spec = survey(
          dynamic('one', { source_type: 'db_query', model: 'hosts', filter: { name__startswith: 'a', inventory__id: 1, enabled: true } }, { default: 'not-listed' }),
          dynamic('many', { source_type: 'api_endpoint', url: 'https://example.com/x', method: 'post', headers: { Authorization: 'Bearer x' }, body: { a: 1 }, timeout: 5, json_path: 'data.items', value_field: 'name', cache_ttl: 0 }, { type: 'multiselect', default: ['p', 'q'] }),
          dynamic('tpl', { source_type: 'jinja2', template: '{{ hosts | tojson }}' }),
          question('off', { choices: ['x'], dynamic_choices: { enabled: false } }),
        );
        const res = await t.post(`${base}survey_spec/`, spec);
        assert.equal(res.status, 200, res.text);
        assert.deepEqual((await t.get(`${base}survey_spec/`)).body.spec[1].dynamic_choices.body, { a: 1 });
        const bad = await t.post(`${base}survey_spec/`, survey(dynamic('one', { source_type: 'jinja2', template: '[]' }, { default: 3 })));
        assert.equal(bad.status, 400);
        assert.match(bad.body.error, /expected to be string/);
      }
    });
  });

  describe('the endpoint', () => {
    it('needs the launch permission: readers, plain members and another organization\'s admin are refused', async () => {
      for (const [, base] of bases()) {
        await setSurvey(base, dynamic('who', { source_type: 'db_query', model: 'hosts' }));
        assert.equal((await t.post(`${base}survey_spec/dynamic_choices/`, {}, { as: reader })).status, 403);
        assert.deepEqual((await t.get(`${base}survey_spec/dynamic_choices/`, { as: reader })).body, { variables: ['who'] });
        for (const who of [member, otherAdmin]) {
          assert.equal((await t.post(`${base}survey_spec/dynamic_choices/`, {}, { as: who })).status, 403);
          assert.equal((await t.get(`${base}survey_spec/dynamic_choices/`, { as: who })).status, 403);
        }
        assert.equal((await t.post(`${base}survey_spec/dynamic_choices/`, {}, { as: executor })).status, 200);
      }
    });

    it('refuses unknown variables, static questions and a malformed body with a 400', async () => {
      for (const [, base] of bases()) {
        await setSurvey(base, dynamic('dyn', { source_type: 'jinja2', template: '[]' }), question('plain', { choices: ['a'] }));
        const cases: [unknown, RegExp][] = [
          [{ variables: ['nope'] }, /'nope' is not a variable of the survey/],
          [{ variables: ['plain'] }, /'plain' has no dynamic choices/],
          [{ variables: 'dyn' }, /Expected a list of variable names/],
          [{ variables: [1] }, /Expected a list of variable names/],
        ];
        for (const [body, message] of cases) {
          const res = await t.post(`${base}survey_spec/dynamic_choices/`, body);
          assert.equal(res.status, 400, res.text);
          assert.match(JSON.stringify(res.body), message);
        }
        assert.deepEqual(await choices(base, {}), { dyn: { choices: [], source_type: 'jinja2' } });
      }
    });
  });

  describe('db_query', () => {
    it('lists hosts and groups of the template\'s inventory when no filter is given', async () => {
      for (const [, base] of bases()) {
        assert.deepEqual((await resolveOne(base, { source_type: 'db_query', model: 'hosts' })).choices, ['alpha', 'beta']);
        assert.deepEqual((await resolveOne(base, { source_type: 'db_query', model: 'groups' })).choices, ['db', 'web']);
      }
    });

    it('shows a caller only what it may read', async () => {
      for (const [, base] of bases()) {
        const everything = { source_type: 'db_query', model: 'hosts', filter: { enabled: true } };
        assert.deepEqual((await resolveOne(base, everything)).choices, ['alpha', 'beta', 'gamma', 'secret-host']);
        // The same source right after, for a user who reads only the spare inventory: not the cached rows of the admin.
        const variable = `v${serial}`;
        assert.deepEqual((await choices(base, { variables: [variable] }, executor))[variable].choices, ['gamma']);
        assert.deepEqual((await resolveOne(base, { source_type: 'db_query', model: 'hosts' }, executor)).choices, [], 'no read on the template\'s inventory');
        assert.deepEqual((await resolveOne(base, { source_type: 'db_query', model: 'credentials' }, executor)).choices, ['cred-shown']);
        assert.deepEqual((await resolveOne(base, { source_type: 'db_query', model: 'credentials' })).choices, ['Ansible Galaxy', 'cred-hidden', 'cred-shown'], 'the managed Galaxy credential too');
        assert.deepEqual((await resolveOne(base, { source_type: 'db_query', model: 'templates' }, executor)).choices, ['dyn-jt', 'dyn-wf']);
        assert.deepEqual((await resolveOne(base, { source_type: 'db_query', model: 'inventories' }, executor)).choices, ['spare']);
      }
    });

    it('takes field and filters as data', async () => {
      const base = bases()[0][1];
      const ids = (await resolveOne(base, { source_type: 'db_query', model: 'hosts', field: 'id', filter: { name__in: 'alpha,gamma' } })).choices;
      assert.equal(ids.length, 2);
      assert.ok(ids.every((id: string) => /^\d+$/.test(id)));
      const injected = await resolveOne(base, { source_type: 'db_query', model: 'hosts', filter: { name: "x' OR '1'='1" } });
      assert.deepEqual(injected, { choices: [], source_type: 'db_query' });
      assert.deepEqual((await resolveOne(base, { source_type: 'db_query', model: 'organizations', filter: { id: org } })).choices.length, 1);
    });
  });

  describe('api_endpoint', () => {
    it('reads a list of strings (distinct), a nested list through json_path and value_field, and POSTs with body and headers', async () => {
      for (const [, base] of bases()) {
        assert.deepEqual(await resolveOne(base, api('/list')), { choices: ['a', 'b', '3'], source_type: 'api_endpoint' });
        assert.deepEqual((await resolveOne(base, api('/nested', { json_path: 'data.items', value_field: 'meta.name' }))).choices, ['x', 'y']);
        const posted = await resolveOne(base, api('/post', { method: 'POST', body: { env: 'prod' }, headers: { 'X-Token': 'abc' }, cache_ttl: 0 }));
        assert.deepEqual(posted.choices, ['posted']);
        const seen = peer.last.get('/post')!;
        assert.equal(seen.method, 'POST');
        assert.deepEqual(JSON.parse(seen.body), { env: 'prod' });
        assert.equal(seen.headers['x-token'], 'abc');
        assert.equal(seen.headers['content-type'], 'application/json');
      }
    });

    it('keeps header values encrypted, never shows them, and sends them again when $encrypted$ comes back', async () => {
      for (const [, base] of bases()) {
        const token = 'Bearer tok-s3cr3t-value';
        await setSurvey(base, dynamic('secured', api('/post', { headers: { Authorization: token, 'X-Plain': 'p' }, cache_ttl: 0 })));
        const shown = (await t.get(`${base}survey_spec/`)).body;
        assert.deepEqual(shown.spec[0].dynamic_choices.headers, { Authorization: '$encrypted$', 'X-Plain': '$encrypted$' });
        const table = base.includes('workflow') ? 'workflow_job_templates' : 'job_templates';
        assert.doesNotMatch(JSON.stringify((await t.db.query(`SELECT survey_spec FROM ${table}`)).map((r) => r.survey_spec)), /s3cr3t/);
        assert.equal((await t.post(`${base}survey_spec/`, shown)).status, 200);
        assert.deepEqual((await choices(base, { variables: ['secured'] })).secured.choices, ['posted']);
        assert.equal(peer.last.get('/post')!.headers.authorization, token);
        assert.equal(peer.last.get('/post')!.headers['x-plain'], 'p');
        assert.doesNotMatch((await t.get(`${base}activity_stream/`)).text, /s3cr3t/);
      }
      // regenerate_secret_key re-encrypts them, on both kinds of template.
      const counts = await t.db.transaction((tx) => reencryptAll(tx, SECRET_STORES, t.env.secretKey, 'another-key'));
      assert.equal(counts['survey passwords'], 4);
      await t.db.transaction((tx) => reencryptAll(tx, SECRET_STORES, 'another-key', t.env.secretKey));
      assert.deepEqual((await choices(bases()[1][1], { variables: ['secured'] })).secured.choices, ['posted']);
      assert.equal(peer.last.get('/post')!.headers.authorization, 'Bearer tok-s3cr3t-value');
    });

    it('answers each failure as an error for that variable, with no choices', async () => {
      const base = bases()[0][1];
      const failures: [Record<string, unknown>, RegExp][] = [
        [api('/fail'), /HTTP 500/],
        [api('/text'), /did not answer JSON/],
        [api('/object', { json_path: 'items' }), /json_path 'items' does not lead to a list/],
        [api('/nested'), /not a list/],
        [api('/nested', { json_path: 'data.items' }), /object or a list where a value was expected/],
        [api('/slow', { timeout: 1 }), /No answer from .* within 1000 ms/],
        [api('/redirect'), /Refused: .*127\.0\.0\.2/],
        [{ source_type: 'api_endpoint', url: 'http://169.254.169.254/latest/meta-data/' }, /Refused: .*private, loopback, link-local/],
      ];
      for (const [source, message] of failures) {
        const answer = await resolveOne(base, source);
        assert.deepEqual(answer.choices, [], String(source.url));
        assert.match(answer.error, message);
      }
    });

    it('keeps the first 500 choices', async () => {
      const answer = await resolveOne(bases()[1][1], api('/many'));
      assert.equal(answer.choices.length, 500);
      assert.equal(answer.choices[0], 'item-0');
      assert.equal(answer.choices[499], 'item-499');
    });

    it('caches for cache_ttl seconds, shared by users; 0 is no cache; a failure is not cached', async () => {
      const [[, jtBase], [, wfBase]] = bases();
      const call = async (path: string, ttl?: number, as?: User) => {
        await setSurvey(jtBase, dynamic('cached', api(path, ttl === undefined ? {} : { cache_ttl: ttl })));
        return (await choices(jtBase, {}, as)).cached;
      };
      await call('/counted-default');
      await call('/counted-default', undefined, executor);
      assert.equal(peer.hits.get('/counted-default'), 1, 'the second call, by another user, is answered from the cache');
      await setSurvey(wfBase, dynamic('cached', api('/counted-default')));
      await choices(wfBase);
      assert.equal(peer.hits.get('/counted-default'), 1, 'the same source of another template too');

      await call('/counted-none', 0);
      await call('/counted-none', 0);
      assert.equal(peer.hits.get('/counted-none'), 2);

      await call('/counted-short', 1);
      assert.equal(peer.hits.get('/counted-short'), 1);
      await eventually(async () => {
        await choices(jtBase);
        return peer.hits.get('/counted-short') === 2;
      }, 5_000, 'the answer expires after 1 s');

      assert.match((await call('/flaky')).error, /HTTP 503/);
      assert.deepEqual((await call('/flaky')).choices, ['recovered']);
      assert.equal(peer.hits.get('/flaky'), 2);
    });
  });

  describe('jinja2', () => {
    it('renders over the names of the template\'s inventory and reads a JSON list', async () => {
      for (const [, base] of bases()) {
        assert.deepEqual(await resolveOne(base, { source_type: 'jinja2', template: '{{ (hosts + groups) | tojson }}' }),
          { choices: ['alpha', 'beta', 'db', 'web'], source_type: 'jinja2' });
        assert.deepEqual((await resolveOne(base, { source_type: 'jinja2', template: '[{% for h in hosts %}"{{ h }}-1"{% if not loop.last %},{% endif %}{% endfor %}]' })).choices, ['alpha-1', 'beta-1']);
      }
    });

    it('stops escapes, runaway loops and output that is not a list', async () => {
      const base = bases()[0][1];
      const cases: [string, RegExp][] = [
        ["{{ hosts.constructor.constructor('return process')() }}", /Template error/],
        ["{{ ''.__class__.__mro__ }}", /./],
        ['{% for a in range(100000) %}{% for b in range(100000) %}{% endfor %}{% endfor %}[]', /stopped/],
        ['{"a": 1}', /must output a JSON list/],
        ['hello', /did not output JSON/],
      ];
      for (const [template, message] of cases) {
        const answer = await resolveOne(base, { source_type: 'jinja2', template });
        assert.deepEqual(answer.choices, [], template);
        assert.match(answer.error, message, template);
      }
    });
  });

  describe('launch', () => {
    it('accepts an answer outside the static choices, keeps the type checks and the required check', async () => {
      for (const [kind, base] of bases()) {
        await setSurvey(base,
          dynamic('target', api('/list'), { required: true }),
          dynamic('tags', api('/list'), { type: 'multiselect', choices: ['only'] }),
        );
        assert.equal((await t.patch(base, { survey_enabled: true })).status, 200);
        const ok = await t.post(`${base}launch/`, { extra_vars: { target: 'not-in-any-list', tags: ['zz', 'only'] } }, { as: executor });
        assert.equal(ok.status, 201, `${kind}: ${ok.text}`);
        const run = (await t.get(ok.body.url)).body;
        assert.deepEqual(JSON.parse(run.extra_vars), { target: 'not-in-any-list', tags: ['zz', 'only'] });
        const refusals: [Record<string, unknown>, RegExp][] = [
          [{ tags: ['zz'] }, /'target' value missing/],
          [{ target: '' }, /'target' value missing/],
          [{ target: 5 }, /expected to be a string/],
          [{ target: 'x', tags: 'zz' }, /'tags' value is expected to be a list/],
          [{ target: 'x', tags: [{}] }, /expected to be a string/],
          [{ target: 'x'.repeat(2000) }, /too large/],
        ];
        for (const [extra_vars, message] of refusals) {
          const res = await t.post(`${base}launch/`, { extra_vars }, { as: executor });
          assert.equal(res.status, 400, `${kind} ${JSON.stringify(extra_vars).slice(0, 60)}: ${res.text}`);
          assert.match(res.body.variables_needed_to_start.join(' '), message);
        }
        assert.equal((await t.patch(base, { survey_enabled: false })).status, 200);
      }
    });
  });
});
