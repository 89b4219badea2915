// Filters never reveal what the caller cannot see: related-path filters only match related objects
// the caller may read, regular expressions are bounded before they reach the database, and a list
// query that runs too long is stopped (on a PostgreSQL server) while other requests go on.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, grant, newOrg, newTeam, newUser, type Credentials, type RequestOptions, type TestApp, type User } from './helpers/app.ts';
import { makeRepository, type GitRepository } from './helpers/git.ts';
import { firstProjectUpdate } from './helpers/jobs.ts';

const PLAY = '- hosts: all\n  gather_facts: false\n  tasks: []\n';

/** A query string with proper encoding. */
const qs = (params: [string, string][]) => new URLSearchParams(params).toString();

describe('filters and visibility', () => {
  let t: TestApp;
  let repo: GitRepository;
  const id: Record<string, number> = {};
  /** (a) a plain member of Alpha who may execute one job template; (b) the admin of Bravo. */
  let member: User;
  let adminB: User;

  const ok = async (method: 'post' | 'patch', url: string, body: unknown) => {
    const res = await t[method](url, body);
    assert.ok(res.status < 300, `${method} ${url}: ${res.status} ${res.text}`);
    return res.body;
  };
  const insertJob = async (fields: Record<string, unknown>) => {
    const columns = { kind: 'job', name: 'security job', status: 'successful', job_type: 'run', ...fields };
    const names = Object.keys(columns);
    const [row] = await t.db.query(
      `INSERT INTO unified_jobs (${names.map((n) => `"${n}"`).join(', ')}) VALUES (${names.map((_, i) => `$${i + 1}`).join(', ')}) RETURNING id`,
      Object.values(columns),
    );
    return row.id as number;
  };

  /** count of a list filtered by `params` as `who` (the superuser when null). */
  async function count(path: string, params: [string, string][], who: Credentials | null): Promise<number> {
    const options: RequestOptions = who ? { as: who } : {};
    const res = await t.get(`/api/v2/${path}/?${qs(params)}`, options);
    assert.equal(res.status, 200, `${path}?${qs(params)}: ${res.text}`);
    assert.equal(res.body.count, res.body.results.length);
    return res.body.count;
  }

  before(async () => {
    t = await createTestApp();
    repo = await makeRepository({ 'site.yml': PLAY });
    id.alpha = (await newOrg(t, { name: 'Alpha' })).id;
    id.bravo = (await newOrg(t, { name: 'Bravo' })).id;
    for (const [key, org, name] of [['projectA', 'alpha', 'SecretProjectA'], ['projectB', 'bravo', 'ProjectB']]) {
      id[key] = (await ok('post', '/api/v2/projects/', { name, organization: id[org], scm_type: 'git', scm_url: `file://${repo.bare}` })).id;
      assert.equal((await firstProjectUpdate(t, id[key])).status, 'successful');
    }
    id.invA = (await ok('post', '/api/v2/inventories/', { name: 'SecretInventoryA', organization: id.alpha })).id;
    id.invB = (await ok('post', '/api/v2/inventories/', { name: 'InventoryB', organization: id.bravo })).id;
    const machine = (await t.get('/api/v2/credential_types/?namespace=ssh')).body.results[0].id;
    const vault = (await t.get('/api/v2/credential_types/?namespace=vault')).body.results[0].id;
    const credential = async (name: string, org: string, type: number, inputs: Record<string, string>) =>
      (await ok('post', '/api/v2/credentials/', { name, organization: id[org], credential_type: type, inputs })).id;
    id.secretProd = await credential('Secret-A-prod', 'alpha', machine, { username: 'u', password: 'p' });
    id.secretVault = await credential('Secret-A-vault', 'alpha', vault, { vault_password: 'v' });
    id.bravoCred = await credential('Bravo-cred', 'bravo', machine, { username: 'u', password: 'p' });
    const template = async (name: string, project: string, inventory: string, credentials: number[]) => {
      const jt = await ok('post', '/api/v2/job_templates/', { name, project: id[project], inventory: id[inventory], playbook: 'site.yml' });
      for (const c of credentials) await ok('post', `/api/v2/job_templates/${jt.id}/credentials/`, { id: c });
      return jt.id as number;
    };
    id.jtA1 = await template('JT-A1', 'projectA', 'invA', [id.secretProd]);
    // A template of Alpha running on Bravo's inventory: its jobs are seen by Bravo's admin through the inventory.
    id.jtA2 = await template('JT-A2-secret', 'projectA', 'invB', []);
    id.jtB1 = await template('JT-B1', 'projectB', 'invB', [id.bravoCred, id.secretVault]);
    const job = (jt: string, project: string, inventory: string, org: string) =>
      insertJob({ job_template_id: id[jt], unified_job_template_id: id[jt], project_id: id[project], inventory_id: id[inventory], organization_id: id[org] });
    id.jobA1 = await job('jtA1', 'projectA', 'invA', 'alpha');
    await t.db.query('INSERT INTO unified_job_credentials (unified_job_id, credential_id) VALUES ($1, $2)', [id.jobA1, id.secretProd]);
    id.jobA2 = await job('jtA2', 'projectA', 'invB', 'alpha');
    id.jobB1 = await job('jtB1', 'projectB', 'invB', 'bravo');

    member = await newUser(t, { member: id.alpha });
    id.member = member.id;
    await grant(t, member, `/api/v2/job_templates/${id.jtA1}/`, 'execute_role');
    adminB = await newUser(t, { admin: id.bravo });
    const both = await newUser(t, { username: 'both', member: [id.alpha, id.bravo] });
    id.both = both.id;
    id.teamA = (await newTeam(t, id.alpha, { name: 'TeamA', members: [both] })).id;
    id.teamB = (await newTeam(t, id.bravo, { name: 'B-secret-team', members: [both] })).id;
  });
  after(async () => {
    await t.close();
    await repo.remove();
  });

  /**
   * One probe: what the superuser counts (the filter does match something), and what the caller
   * counts, which must be what the list would count if the hidden objects did not exist.
   */
  interface Probe {
    path: string;
    params: [string, string][];
    superuser: number;
    caller: number;
  }

  const probe = (who: () => Credentials, probes: Probe[]) => {
    for (const p of probes) {
      it(`${p.path}?${qs(p.params)} counts ${p.caller} (superuser ${p.superuser})`, async () => {
        assert.equal(await count(p.path, p.params, null), p.superuser, 'as the superuser');
        assert.equal(await count(p.path, p.params, who()), p.caller, 'as the caller');
      });
    }
  };

  describe('(a) an organization member who may execute one job template', () => {
    it('sees the one template, its job and the users of his organization', async () => {
      assert.equal(await count('job_templates', [], member), 1);
      assert.equal(await count('jobs', [], member), 1);
      assert.equal(await count('users', [['username', 'both']], member), 1);
    });
    probe(() => member, [
      // Credentials of the template he executes, which he may not read.
      { path: 'job_templates', params: [['credentials__name', 'Secret-A-prod']], superuser: 1, caller: 0 },
      { path: 'job_templates', params: [['credentials__name__regex', '^S']], superuser: 2, caller: 0 },
      { path: 'job_templates', params: [['credentials__name__iregex', 'prod$']], superuser: 1, caller: 0 },
      { path: 'job_templates', params: [['credentials__name__icontains', 'secret']], superuser: 2, caller: 0 },
      { path: 'job_templates', params: [['credentials__name__startswith', 'Secret-A-p']], superuser: 1, caller: 0 },
      { path: 'job_templates', params: [['credentials__search', 'prod']], superuser: 1, caller: 0 },
      { path: 'job_templates', params: [['not__credentials__name', 'Secret-A-prod']], superuser: 2, caller: 1 },
      { path: 'job_templates', params: [['or__credentials__name__regex', '^Secret'], ['or__name', 'nothing']], superuser: 2, caller: 0 },
      { path: 'job_templates', params: [['chain__credentials__name__startswith', 'Sec'], ['chain__name', 'JT-A1']], superuser: 1, caller: 0 },
      // The project and inventory of the template, which execute does not let him read.
      { path: 'job_templates', params: [['project__name', 'SecretProjectA']], superuser: 2, caller: 0 },
      { path: 'job_templates', params: [['inventory__name__regex', '^Secret']], superuser: 1, caller: 0 },
      { path: 'jobs', params: [['credentials__name', 'Secret-A-prod']], superuser: 1, caller: 0 },
      { path: 'jobs', params: [['project__name__regex', 'Secret']], superuser: 2, caller: 0 },
      { path: 'jobs', params: [['inventory__name__startswith', 'S']], superuser: 1, caller: 0 },
      // Teams and organizations of another organization's users he sees.
      { path: 'users', params: [['teams__name', 'B-secret-team']], superuser: 1, caller: 0 },
      { path: 'users', params: [['teams__name__regex', 'secret']], superuser: 1, caller: 0 },
      { path: 'users', params: [['organizations__name', 'Bravo']], superuser: 1, caller: 0 },
      { path: 'users', params: [['organizations__name__iregex', '^b']], superuser: 1, caller: 0 },
      { path: 'users', params: [['admin_of_organizations__name', 'Bravo']], superuser: 1, caller: 0 },
      // What he may see still matches.
      { path: 'job_templates', params: [['organization__name', 'Alpha']], superuser: 2, caller: 1 },
      { path: 'job_templates', params: [['jobs__name', 'security job']], superuser: 3, caller: 1 },
      { path: 'jobs', params: [['job_template__name', 'JT-A1']], superuser: 1, caller: 1 },
      { path: 'unified_jobs', params: [['type', 'job'], ['unified_job_template__name__regex', '^JT-A1$']], superuser: 1, caller: 1 },
      { path: 'users', params: [['teams__name', 'TeamA']], superuser: 1, caller: 1 },
      { path: 'users', params: [['organizations__name', 'Alpha']], superuser: 2, caller: 2 },
      { path: 'teams', params: [['organization__name__regex', '^Al']], superuser: 1, caller: 1 },
    ]);

    it('a reference compared by its own id still matches: the object shows that id anyway', async () => {
      assert.equal(await count('job_templates', [['project', String(id.projectA)]], member), 1);
      assert.equal(await count('job_templates', [['project__id', String(id.projectA)]], member), 1);
      assert.equal(await count('jobs', [['inventory', String(id.invA)]], member), 1);
    });

    it('ordering by a field of a hidden object tells nothing: it orders as if the value were missing', async () => {
      // A second job of his template, from Bravo's project: by project name it comes first (ProjectB < SecretProjectA).
      const other = await insertJob({ job_template_id: id.jtA1, unified_job_template_id: id.jtA1, project_id: id.projectB, inventory_id: id.invA, organization_id: id.alpha });
      try {
        const ids = async (who: Credentials | null, orderBy: string) => {
          const res = await t.get(`/api/v2/jobs/?job_template=${id.jtA1}&order_by=${orderBy}`, who ? { as: who } : {});
          assert.equal(res.status, 200, res.text);
          return res.body.results.map((r: any) => r.id);
        };
        assert.deepEqual(await ids(null, 'project__name'), [other, id.jobA1]);
        assert.deepEqual(await ids(member, 'project__name'), [id.jobA1, other]);
        assert.deepEqual(await ids(member, 'project__name,-id'), [other, id.jobA1]);
        assert.deepEqual(await ids(member, 'project'), [id.jobA1, other]);
      } finally {
        await t.db.query('DELETE FROM unified_jobs WHERE id = $1', [other]);
      }
    });
  });

  describe('(b) the admin of another organization', () => {
    it('sees his templates and his jobs, not another organization\'s job run on his inventory (AWX\'s UnifiedJobAccess)', async () => {
      assert.equal(await count('job_templates', [], adminB), 1);
      assert.equal(await count('unified_jobs', [['type', 'job']], adminB), 1);
    });
    probe(() => adminB, [
      // A credential of Alpha attached to Bravo's template.
      { path: 'job_templates', params: [['credentials__name', 'Secret-A-vault']], superuser: 1, caller: 0 },
      { path: 'job_templates', params: [['credentials__name__regex', '^Secret']], superuser: 2, caller: 0 },
      { path: 'job_templates', params: [['credentials__name__regex', 'vault$']], superuser: 1, caller: 0 },
      { path: 'job_templates', params: [['not__credentials__name__icontains', 'vault']], superuser: 2, caller: 1 },
      // The name of Alpha's template whose job ran on Bravo's inventory.
      { path: 'unified_jobs', params: [['type', 'job'], ['unified_job_template__name', 'JT-A2-secret']], superuser: 1, caller: 0 },
      { path: 'unified_jobs', params: [['type', 'job'], ['unified_job_template__name__regex', '^JT-A']], superuser: 2, caller: 0 },
      { path: 'unified_jobs', params: [['type', 'job'], ['organization__name', 'Alpha']], superuser: 2, caller: 0 },
      { path: 'unified_jobs', params: [['type', 'job'], ['or__organization__name__icontains', 'alph'], ['or__unified_job_template__name__regex', 'secret$']], superuser: 2, caller: 0 },
      // Users he sees (every user, as an organization admin) and the organizations they belong to.
      { path: 'users', params: [['organizations__name', 'Alpha']], superuser: 2, caller: 0 },
      { path: 'users', params: [['organizations__name__regex', '^A']], superuser: 2, caller: 0 },
      { path: 'teams', params: [['organization__name', 'Alpha']], superuser: 1, caller: 0 },
      // What he may see still matches.
      { path: 'job_templates', params: [['credentials__name', 'Bravo-cred']], superuser: 1, caller: 1 },
      { path: 'job_templates', params: [['credentials__name__regex', '^Bravo']], superuser: 1, caller: 1 },
      { path: 'unified_jobs', params: [['type', 'job'], ['unified_job_template__name', 'JT-B1']], superuser: 1, caller: 1 },
      { path: 'unified_jobs', params: [['type', 'job'], ['organization__name', 'Bravo']], superuser: 1, caller: 1 },
      { path: 'users', params: [['organizations__name', 'Bravo']], superuser: 1, caller: 1 },
    ]);

    it('without ORG_ADMINS_CAN_SEE_ALL_USERS, the teams of another organization of a user he sees stay hidden', async () => {
      assert.equal((await t.patch('/api/v2/settings/system/', { ORG_ADMINS_CAN_SEE_ALL_USERS: false })).status, 200);
      try {
        assert.equal(await count('users', [['username', 'both']], adminB), 1);
        assert.equal(await count('users', [['teams__name', 'TeamA']], null), 1);
        assert.equal(await count('users', [['teams__name', 'TeamA']], adminB), 0);
        assert.equal(await count('users', [['teams__name__regex', '^Team']], adminB), 0);
        assert.equal(await count('users', [['teams__name', 'B-secret-team']], adminB), 1);
      } finally {
        await t.patch('/api/v2/settings/system/', { ORG_ADMINS_CAN_SEE_ALL_USERS: true });
      }
    });
  });

  describe('what may never be filtered on', () => {
    for (const who of ['member', 'adminB'] as const) {
      it(`secret fields at the end of a related path are refused (${who})`, async () => {
        const as = who === 'member' ? member : adminB;
        for (const [path, key] of [
          ['job_templates', 'credentials__inputs__icontains'],
          ['users', 'password__startswith'],
          ['teams', 'organization__admins__password__startswith'],
          ['users', 'tokens__token__startswith'],
        ]) {
          const res = await t.get(`/api/v2/${path}/?${qs([[key, 'a']])}`, { as });
          assert.equal(res.status, 403, `${path}?${key}: ${res.text}`);
          assert.match(res.body.detail, /not allowed/);
        }
      });
    }

    it('a path going round in a loop is refused, as AWX does', async () => {
      const res = await t.get(`/api/v2/teams/?${qs([['organization__teams__organization__name', 'Alpha']])}`);
      assert.equal(res.status, 400);
      assert.match(res.body.detail, /Loops not allowed/);
    });

    it('inherited property names are unknown fields, not server errors', async () => {
      for (const key of ['constructor', 'toString__name', 'organization__hasOwnProperty']) {
        const res = await t.get(`/api/v2/teams/?${qs([[key, '1']])}`);
        assert.equal(res.status, 400, `${key}: ${res.text}`);
      }
      assert.equal((await t.get('/api/v2/teams/?order_by=constructor')).status, 400);
    });
  });

  describe('regular expressions', () => {
    const refused: [string, RegExp][] = [
      ['(a+)+$', /repeated group/],
      ['(a*)*', /repeated group/],
      ['(a|a)*', /repeated group/],
      ['(x+x+)+y', /repeated group/],
      ['(?:a|b+){2,}', /repeated group/],
      ['((a{1,100}){1,100}){1,100}', /repeated group/],
      ['^(a)\\1$', /back references/],
      ['a{1000}', /repetition counts/],
      ['a{1,101}', /repetition counts/],
      ['(?=.*z)', /lookahead and lookbehind/],
      ['a(?!b)', /lookahead and lookbehind/],
      ['x'.repeat(201), /at most 200 characters/],
    ];
    for (const who of ['member', 'adminB'] as const) {
      for (const [pattern, message] of refused) {
        it(`${who}: ${pattern.length > 40 ? `a ${pattern.length}-character pattern` : pattern} answers 400`, async () => {
          for (const key of ['name__regex', 'organization__name__iregex', 'not__description__regex']) {
            const res = await t.get(`/api/v2/job_templates/?${qs([[key, pattern]])}`, { as: who === 'member' ? member : adminB });
            assert.equal(res.status, 400, res.text);
            assert.match(res.body.detail, message);
          }
        });
      }
    }

    it('patterns without those shapes work, with the same meaning as before', async () => {
      const cases: [string, number][] = [
        ['^JT-(A|B)[0-9]$', 2],
        ['^JT-[AB]1$', 2],
        ['^JT-A\\d', 2],
        ['^(JT)?-?A{1,3}', 2],
        ['^-?A{1,3}', 0],
        ['[(+*]', 0],
        ['(?i)^jt-b', 1],
        ['^J.{0,100}secret$', 1],
        ['***=JT-A1', 1],
        ['^(JT-A1|JT-B1)$', 2],
        ['^J(T)-', 3],
        ['^JT-.+?1$', 2],
      ];
      for (const [pattern, expected] of cases) assert.equal(await count('job_templates', [['name__regex', pattern]], null), expected, pattern);
    });

    it('an invalid regular expression answers 400, not 500', async () => {
      for (const pattern of ['(', '[z-a]', 'a{2,1}', '*a']) {
        const res = await t.get(`/api/v2/job_templates/?${qs([['name__regex', pattern]])}`);
        assert.equal(res.status, 400, `${pattern}: ${res.text}`);
        assert.equal(typeof res.body.detail, 'string');
      }
    });

    it('more than 10 regular expression filters in one request answer 400', async () => {
      const params: [string, string][] = Array.from({ length: 11 }, (_, i) => ['or__name__regex', `^x${i}`]);
      const res = await t.get(`/api/v2/job_templates/?${qs(params)}`);
      assert.equal(res.status, 400);
      assert.match(res.body.detail, /at most 10 regular expression filters/);
      assert.equal(await count('job_templates', params.slice(0, 10), null), 0);
    });

    describe('their cost together (MAX_FILTER_REGEX_COST)', () => {
      const hostile = '.{0,100}'.repeat(24);
      const threeBounds = 'a.{0,100}b.{0,100}c.{0,100}z';
      for (const who of ['member', 'adminB'] as const) {
        it(`${who}: ten filters of .{0,100} written 24 times (each within the other limits) answer 400 naming the filter`, async () => {
          const params: [string, string][] = Array.from({ length: 10 }, () => ['or__description__regex', hostile]);
          const res = await t.get(`/api/v2/job_templates/?${qs(params)}`, { as: who === 'member' ? member : adminB });
          assert.equal(res.status, 400, res.text);
          assert.match(res.body.detail, /^or__description__regex: the regular expressions of this request are too costly together/);
        });

        it(`${who}: filters affordable alone answer 400 once together over the budget, naming the one that crosses it`, async () => {
          const as = who === 'member' ? member : adminB;
          const three: [string, string][] = [['name__regex', threeBounds], ['description__regex', threeBounds], ['organization__name__iregex', threeBounds]];
          assert.equal((await t.get(`/api/v2/job_templates/?${qs(three)}`, { as })).status, 200);
          const res = await t.get(`/api/v2/job_templates/?${qs([...three, ['not__description__regex', threeBounds]])}`, { as });
          assert.equal(res.status, 400, res.text);
          assert.match(res.body.detail, /^not__description__regex: .*costs 304, bringing the total to 1216; at most 1000/);
        });
      }

      it('ten ordinary patterns in one request are answered', async () => {
        const params: [string, string][] = [
          '^JT-', '^web-\\d+$', '[0-9]{1,3}\\.[0-9]{1,3}\\.[0-9]{1,3}\\.[0-9]{1,3}', '^J.{0,100}secret$', '(?i)^jt-[ab][0-9]+$',
          '^(JT-A1|JT-B1)$', 'prod|staging', '\\.example\\.com$', '^[a-z0-9_-]{1,64}$', '***=JT-A1',
        ].map((pattern) => ['or__name__regex', pattern]);
        const res = await t.get(`/api/v2/job_templates/?${qs(params)}`, { as: member });
        assert.equal(res.status, 200, res.text);
      });

      it("a smart inventory's host filter is held to the budget across its terms", async () => {
        const filter = [1, 2, 3, 4].map(() => `name__regex="${threeBounds}"`).join(' or ');
        const res = await t.post('/api/v2/inventories/', { name: 'costly smart', organization: id.alpha, kind: 'smart', host_filter: filter });
        assert.equal(res.status, 400, res.text);
        assert.match(JSON.stringify(res.body), /too costly together/);
        const fine = await t.post('/api/v2/inventories/', { name: 'affordable smart', organization: id.alpha, kind: 'smart', host_filter: filter.split(' or ').slice(0, 3).join(' or ') });
        assert.equal(fine.status, 201, fine.text);
      });
    });

    it('the smart inventory host filter is held to the same limits', async () => {
      const res = await t.post('/api/v2/inventories/', { name: 'smart', organization: id.alpha, kind: 'smart', host_filter: 'name__regex="(a+)+$"' });
      assert.equal(res.status, 400, res.text);
      assert.match(JSON.stringify(res.body), /repeated group/);
    });

    it("an inventory source's host_filter runs in linear time: what cannot is refused", async () => {
      const source = (fields: Record<string, unknown>) =>
        t.post('/api/v2/inventory_sources/', { name: `filtered ${Object.keys(fields).length}`, inventory: id.invB, source: 'ec2', ...fields }, { as: adminB });
      for (const pattern of ['(a)\\1', '(?=web)', '(?<!db)web', '(?<n>a)\\k<n>']) {
        const res = await source({ host_filter: pattern });
        assert.equal(res.status, 400, `${pattern}: ${res.text}`);
        assert.match(res.body.host_filter[0], /back references, lookahead and lookbehind are not allowed/);
      }
      const accepted = await source({ host_filter: '(a+)+$' });
      assert.equal(accepted.status, 201, accepted.text);
    });

    it('/ping/ answers while a catastrophic pattern is tried', async () => {
      const slow = t.get(`/api/v2/users/?${qs([['username__regex', '(a+)+$'], ['first_name__regex', '((a{1,100}){1,100}){1,100}']])}`, { as: adminB });
      const ping = t.get('/api/v2/ping/', { as: null });
      const [pinged, refusedRes] = await Promise.all([ping, slow]);
      assert.equal(pinged.status, 200);
      assert.equal(refusedRes.status, 400);
    });
  });

  describe('the statement timeout (LIST_QUERY_TIMEOUT)', () => {
    it('is a system setting of 5 seconds by default, between 1 and 300', async () => {
      const system = (await t.get('/api/v2/settings/system/')).body;
      assert.equal(system.LIST_QUERY_TIMEOUT, 5);
      for (const bad of [0, 301, 'soon']) {
        const res = await t.patch('/api/v2/settings/system/', { LIST_QUERY_TIMEOUT: bad });
        assert.equal(res.status, 400, `${bad}: ${res.text}`);
        assert.ok(res.body.LIST_QUERY_TIMEOUT);
      }
    });

    it('stops a list query that runs longer, answers 400, and /ping/ answers meanwhile', async () => {
      // Ping has a reading to answer while the embedded database is busy (it runs one statement at a time).
      assert.equal((await t.get('/api/v2/ping/', { as: null })).status, 200);
      // Three times 40 MB of text that compresses to little: each regular expression reads all of it.
      const bigs = await t.db.query(`INSERT INTO organizations (name, description) SELECT 'big' || n, repeat('abcdefghij', 4000000) FROM generate_series(1, 3) n RETURNING id`);
      assert.equal((await t.patch('/api/v2/settings/system/', { LIST_QUERY_TIMEOUT: 1 })).status, 200);
      try {
        // Three filters: within the cost budget (MAX_FILTER_REGEX_COST) together.
        const params: [string, string][] = ['z', 'y', 'x'].map((c) => ['or__description__regex', `a.{0,100}b.{0,100}c.{0,100}${c}`]);
        const order: string[] = [];
        const slow = t.get(`/api/v2/organizations/?${qs(params)}`).then((res) => (order.push('list'), res));
        const ping = t.get('/api/v2/ping/', { as: null }).then((res) => (order.push('ping'), res));
        const [pinged, stopped] = await Promise.all([ping, slow]);
        assert.equal(pinged.status, 200);
        assert.deepEqual(order, ['ping', 'list'], 'ping answered before the list query ended');
        assert.equal(stopped.status, 400, stopped.text);
        assert.equal(stopped.body.detail, 'The filter took too long (over 1 second); make it simpler.');
        // The connections are usable again.
        assert.equal(await count('organizations', [['name', 'Alpha']], null), 1);
      } finally {
        await t.patch('/api/v2/settings/system/', { LIST_QUERY_TIMEOUT: 5 });
        await t.db.query('DELETE FROM organizations WHERE id = ANY($1)', [bigs.map((b) => b.id)]);
      }
    });
  });
});
