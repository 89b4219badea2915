import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, newOrg, newTeam, type TestApp } from './helpers/app.ts';

/** A query string built with proper encoding (values may hold %, _, + and spaces). */
const qs = (params: Record<string, string> | [string, string][]) => new URLSearchParams(params).toString();

describe('list filters', () => {
  let t: TestApp;
  const orgIds: Record<string, number> = {};
  const teamIds: Record<string, number> = {};

  /** Names (or usernames) of the list at `path` filtered by `params`, sorted unless `keepOrder`. */
  async function names(path: string, params: Record<string, string> | [string, string][], keepOrder = false): Promise<string[]> {
    const res = await t.get(`/api/v2/${path}/?${qs(params)}`);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.count, res.body.results.length);
    const list = res.body.results.map((r: any) => (r.type === 'user' ? r.username : r.type === 'team' ? `${r.name}@${r.summary_fields.organization.name}` : r.name));
    return keepOrder ? list : [...list].sort();
  }

  async function status(path: string, params: Record<string, string> | [string, string][]) {
    const res = await t.get(`/api/v2/${path}/?${qs(params)}`);
    return { status: res.status, body: res.body };
  }

  before(async () => {
    t = await createTestApp();
    const orgs = [
      { name: 'alpha', description: 'first org', max_hosts: 10, policy_enforcement: 'warn' },
      { name: 'beta', description: 'second', max_hosts: 20 },
      { name: 'pct%sign' },
      { name: 'under_score' },
      { name: 'underXscore' },
      { name: 'back\\slash' },
    ];
    for (const org of orgs) orgIds[org.name] = (await newOrg(t, org)).id;
    for (const [name, org] of [['ops', 'alpha'], ['dev', 'alpha'], ['ops', 'beta']]) teamIds[`${name}@${org}`] = (await newTeam(t, orgIds[org], { name })).id;
    const alice = await t.createUser('alice', { first_name: 'Alice', email: 'alice@example.com' });
    const bob = await t.createUser('bob', { email: 'bob@example.org', is_system_auditor: true });
    await t.createUser('carol', { last_name: 'Smith' });
    const attach = async (url: string, id: number) => assert.equal((await t.post(url, { id })).status, 204);
    await attach(`/api/v2/teams/${teamIds['ops@alpha']}/users/`, alice.id);
    await attach(`/api/v2/teams/${teamIds['dev@alpha']}/users/`, bob.id);
    await attach(`/api/v2/teams/${teamIds['ops@beta']}/users/`, bob.id);
    await attach(`/api/v2/organizations/${orgIds.alpha}/users/`, alice.id);
    await attach(`/api/v2/organizations/${orgIds.beta}/users/`, bob.id);
    await t.db.query(`UPDATE organizations SET created = '2020-05-01T00:00:00Z' WHERE name = 'alpha'`);
    await t.db.query(`UPDATE organizations SET created = '2021-03-15T12:00:00Z' WHERE name = 'beta'`);
    await t.db.query(`UPDATE organizations SET created = '2030-01-01T00:00:00.000001Z' WHERE name = 'underXscore'`);
  });
  after(() => t.close());

  describe('text lookups', () => {
    const cases: [string, Record<string, string>, string[]][] = [
      ['exact', { name: 'alpha' }, ['alpha']],
      ['exact (explicit)', { name__exact: 'beta' }, ['beta']],
      ['exact is case-sensitive', { name: 'ALPHA' }, []],
      ['iexact', { name__iexact: 'ALPHA' }, ['alpha']],
      ['contains', { name__contains: 'lph' }, ['alpha']],
      ['contains is case-sensitive', { name__contains: 'LPH' }, []],
      ['icontains', { name__icontains: 'LPH' }, ['alpha']],
      ['startswith', { name__startswith: 'be' }, ['beta']],
      ['startswith is case-sensitive', { name__startswith: 'BE' }, []],
      ['istartswith', { name__istartswith: 'BE' }, ['beta']],
      ['endswith', { name__endswith: 'ta' }, ['beta']],
      ['endswith is case-sensitive', { name__endswith: 'TA' }, []],
      ['iendswith', { name__iendswith: 'TA' }, ['beta']],
      ['gt', { name__in: 'alpha,beta', name__gt: 'alpha' }, ['beta']],
      ['gte', { name__in: 'alpha,beta', name__gte: 'alpha' }, ['alpha', 'beta']],
      ['lt', { name__in: 'alpha,beta', name__lt: 'beta' }, ['alpha']],
      ['lte', { name__in: 'alpha,beta', name__lte: 'beta' }, ['alpha', 'beta']],
      ['in', { name__in: 'alpha,beta,nothing' }, ['alpha', 'beta']],
      ['isnull false', { name__isnull: 'false', name__startswith: 'under' }, ['underXscore', 'under_score']],
      ['isnull true', { name__isnull: 'true' }, []],
      ['regex', { name__regex: '^(al|be)' }, ['alpha', 'beta']],
      ['regex is case-sensitive', { name__regex: '^AL' }, []],
      ['iregex', { name__iregex: '^AL' }, ['alpha']],
      ['description contains', { description__contains: 'org' }, ['alpha']],
    ];
    for (const [label, params, expected] of cases) {
      it(label, async () => assert.deepEqual(await names('organizations', params), expected));
    }

    it('isnull on a nullable text field', async () => {
      assert.deepEqual(await names('users', { external_account__isnull: 'true' }), ['admin', 'alice', 'bob', 'carol']);
      assert.deepEqual(await names('users', { external_account__isnull: 'false' }), []);
    });
  });

  describe('LIKE wildcards are matched literally', () => {
    const cases: [string, Record<string, string>, string[]][] = [
      ['% in contains', { name__contains: '%' }, ['pct%sign']],
      ['% in icontains', { name__icontains: 'T%S' }, ['pct%sign']],
      ['% in endswith', { name__endswith: '%sign' }, ['pct%sign']],
      ['_ in contains', { name__contains: '_' }, ['under_score']],
      ['_ in startswith', { name__startswith: 'under_' }, ['under_score']],
      ['_ in istartswith', { name__istartswith: 'UNDER_' }, ['under_score']],
      ['_ in iendswith', { name__iendswith: 'R_SCORE' }, ['under_score']],
      ['backslash in contains', { name__contains: '\\' }, ['back\\slash']],
      ['% in search', { search: '%' }, ['pct%sign']],
      ['_ in search', { search: 'r_s' }, ['under_score']],
    ];
    for (const [label, params, expected] of cases) {
      it(label, async () => assert.deepEqual(await names('organizations', params), expected));
    }
  });

  describe('integer lookups', () => {
    const cases: [string, Record<string, string>, string[]][] = [
      ['exact', { max_hosts: '10' }, ['alpha']],
      ['gt', { max_hosts__gt: '10' }, ['beta']],
      ['gte', { max_hosts__gte: '10' }, ['alpha', 'beta']],
      ['lt', { max_hosts__lt: '20', max_hosts__gt: '0' }, ['alpha']],
      ['lte', { max_hosts__lte: '10', name__in: 'alpha,beta' }, ['alpha']],
      ['in', { max_hosts__in: '10,20' }, ['alpha', 'beta']],
      ['contains', { max_hosts__contains: '2' }, ['beta']],
      ['startswith', { max_hosts__startswith: '1' }, ['alpha']],
      ['regex', { max_hosts__regex: '^[12]0$' }, ['alpha', 'beta']],
      ['isnull', { max_hosts__isnull: 'true' }, []],
      ['negative value', { max_hosts__gt: '-1', name: 'alpha' }, ['alpha']],
    ];
    for (const [label, params, expected] of cases) {
      it(label, async () => assert.deepEqual(await names('organizations', params), expected));
    }

    it('id and pk', async () => {
      assert.deepEqual(await names('organizations', { id: String(orgIds.alpha) }), ['alpha']);
      assert.deepEqual(await names('organizations', { pk: String(orgIds.beta) }), ['beta']);
      assert.deepEqual(await names('organizations', { id__in: `${orgIds.alpha},${orgIds.beta}` }), ['alpha', 'beta']);
      assert.deepEqual(await names('organizations', { id__gte: String(orgIds['back\\slash']) }), ['back\\slash']);
    });

    it('invalid integers are 400, never 500', async () => {
      for (const params of <Record<string, string>[]>[
        { max_hosts: 'abc' },
        { max_hosts__gt: '1.5' },
        { max_hosts__in: '10,x' },
        { max_hosts: '' },
        { id: 'abc' },
        { id__lt: '1e3' },
      ]) {
        const res = await status('organizations', params);
        assert.equal(res.status, 400, JSON.stringify(params));
        assert.equal(typeof res.body.detail, 'string');
      }
      // An integer past the column's range is still an integer: no row has it (as AWX).
      const beyond = await status('organizations', { max_hosts: '99999999999' });
      assert.equal(beyond.status, 200);
      assert.equal(beyond.body.count, 0);
      assert.deepEqual(await status('organizations', { max_hosts: 'abc' }), {
        status: 400,
        body: { detail: 'max_hosts: "abc" is not a valid integer.' },
      });
    });
  });

  describe('boolean lookups', () => {
    const cases: [string, Record<string, string>, string[]][] = [
      ['true', { is_superuser: 'true' }, ['admin']],
      ['True', { is_superuser: 'True' }, ['admin']],
      ['1', { is_superuser: '1' }, ['admin']],
      ['false', { is_superuser: 'false' }, ['alice', 'bob', 'carol']],
      ['0', { is_superuser__exact: '0' }, ['alice', 'bob', 'carol']],
      ['another flag', { is_system_auditor: 'true' }, ['bob']],
      ['in', { is_system_auditor__in: 'true' }, ['bob']],
      ['not', { not__is_superuser: 'true' }, ['alice', 'bob', 'carol']],
    ];
    for (const [label, params, expected] of cases) {
      it(label, async () => assert.deepEqual(await names('users', params), expected));
    }

    it('invalid booleans are 400, never 500', async () => {
      for (const params of <Record<string, string>[]>[{ is_superuser: 'maybe' }, { is_superuser__in: 'true,maybe' }, { is_superuser__isnull: 'perhaps' }, { is_superuser: '' }]) {
        const res = await status('users', params);
        assert.equal(res.status, 400, JSON.stringify(params));
        assert.equal(typeof res.body.detail, 'string');
      }
    });
  });

  describe('datetime lookups', () => {
    const cases: [string, Record<string, string>, string[]][] = [
      ['lt a date', { created__lt: '2021-01-01' }, ['alpha']],
      ['gte a date', { created__gte: '2020-05-01', name__in: 'alpha,beta' }, ['alpha', 'beta']],
      ['gte and lt a day', { created__gte: '2021-03-15', created__lt: '2021-03-16' }, ['beta']],
      ['gt a datetime', { created__gt: '2020-05-01T00:00:00Z', created__lt: '2022-01-01' }, ['beta']],
      ['lte a date', { created__lte: '2020-05-01' }, ['alpha']],
      ['exact datetime', { created: '2020-05-01T00:00:00Z' }, ['alpha']],
      ['exact datetime with offset', { created: '2021-03-15T14:00:00+02:00' }, ['beta']],
      ['in', { created__in: '2020-05-01T00:00:00Z,2021-03-15T12:00:00Z' }, ['alpha', 'beta']],
      ['isnull', { created__isnull: 'true' }, []],
      ['recent objects', { created__gte: '2022-01-01', name__in: 'alpha,beta,under_score' }, ['under_score']],
      ['microseconds count (exact)', { created: '2030-01-01T00:00:00.000001Z' }, ['underXscore']],
      ['microseconds count (no match)', { created: '2030-01-01T00:00:00Z' }, []],
      ['microseconds count (gt)', { created__gt: '2030-01-01T00:00:00Z' }, ['underXscore']],
    ];
    for (const [label, params, expected] of cases) {
      it(label, async () => assert.deepEqual(await names('organizations', params), expected));
    }

    it('a datetime without an offset is UTC, whatever the process time zone', async () => {
      const saved = process.env.TZ;
      process.env.TZ = 'America/New_York';
      try {
        assert.equal(new Date(2020, 4, 1).getTimezoneOffset(), 240, 'the time zone is in effect');
        assert.deepEqual(await names('organizations', { created: '2020-05-01T00:00:00' }), ['alpha']);
        assert.deepEqual(await names('organizations', { created: '2020-05-01 00:00:00' }), ['alpha']);
        assert.deepEqual(await names('organizations', { created__lt: '2020-05-01T00:00:01', created__gte: '2020-05-01' }), ['alpha']);
      } finally {
        if (saved === undefined) delete process.env.TZ;
        else process.env.TZ = saved;
      }
    });

    it('invalid dates are 400, never 500', async () => {
      for (const params of <Record<string, string>[]>[
        { created: 'notadate' },
        { created: '1' },
        { created: 'May 1 2020' },
        { created: '2021-02-30' },
        { created__gte: '0000-01-01' },
        { created__gte: '2020-13-45' },
        { created__in: '2020-01-01,bogus' },
        { created__lt: '' },
        { modified__gt: '99999-01-01' },
      ]) {
        const res = await status('organizations', params);
        assert.equal(res.status, 400, JSON.stringify(params));
        assert.equal(typeof res.body.detail, 'string');
      }
    });
  });

  describe('related paths', () => {
    it('through a reference', async () => {
      assert.deepEqual(await names('teams', { organization__name: 'alpha' }), ['dev@alpha', 'ops@alpha']);
      assert.deepEqual(await names('teams', { organization: String(orgIds.beta) }), ['ops@beta']);
      assert.deepEqual(await names('teams', { organization__id: String(orgIds.beta) }), ['ops@beta']);
      assert.deepEqual(await names('teams', { organization__name__icontains: 'ALP' }), ['dev@alpha', 'ops@alpha']);
      assert.deepEqual(await names('teams', { organization__max_hosts__gte: '20' }), ['ops@beta']);
    });

    it('a null reference', async () => {
      assert.deepEqual(await names('organizations', { created_by: 'null' }), ['Default']);
      assert.deepEqual(await names('organizations', { created_by__isnull: 'true' }), ['Default']);
      assert.deepEqual(await names('organizations', { created_by__username: 'admin', name__in: 'Default,alpha' }), ['alpha']);
    });

    it('through a many-to-many list', async () => {
      assert.deepEqual(await names('users', { teams__name: 'ops' }), ['alice', 'bob']);
      assert.deepEqual(await names('users', { teams__name: 'dev' }), ['bob']);
      assert.deepEqual(await names('users', { teams: String(teamIds['ops@alpha']) }), ['alice']);
      assert.deepEqual(await names('organizations', { users__username: 'alice' }), ['alpha']);
      assert.deepEqual(await names('organizations', { teams__name: 'dev' }), ['alpha']);
      assert.deepEqual(await names('users', { organizations__name: 'beta' }), ['bob']);
      assert.deepEqual(await names('users', { teams__organization__name: 'beta' }), ['bob']);
      assert.deepEqual(await names('teams', { users__username__startswith: 'ali' }), ['ops@alpha']);
    });

    it('related search', async () => {
      assert.deepEqual(await names('teams', { organization__search: 'LPH' }), ['dev@alpha', 'ops@alpha']);
      assert.deepEqual(await names('teams', { organization__search: 'second' }), ['ops@beta']);
      assert.deepEqual(await names('organizations', { users__search: 'alice@example' }), ['alpha']);
    });

    it('unknown fields in a path are 400', async () => {
      for (const params of <Record<string, string>[]>[{ organization__nosuch: 'x' }, { users__nosuch: '1' }, { name__nosuch: 'x' }, { organization__name__exact__in: 'x' }]) {
        const res = await status('teams', params);
        assert.equal(res.status, 400, JSON.stringify(params));
        assert.equal(typeof res.body.detail, 'string');
      }
    });
  });

  describe('not, or, chain', () => {
    it('not__ negates', async () => {
      assert.deepEqual(await names('organizations', { not__name: 'alpha', name__in: 'alpha,beta' }), ['beta']);
      assert.deepEqual(await names('users', { not__teams__name: 'ops' }), ['admin', 'carol']);
      assert.deepEqual(await names('organizations', { not__name__startswith: 'under', max_hosts: '0' }), ['Default', 'back\\slash', 'pct%sign']);
    });

    it('not__ keeps rows whose value is null', async () => {
      assert.deepEqual(await names('users', { not__external_account: 'x' }), ['admin', 'alice', 'bob', 'carol']);
    });

    it('several or__ filters: any may hold', async () => {
      assert.deepEqual(await names('organizations', [['or__name', 'alpha'], ['or__name', 'beta']]), ['alpha', 'beta']);
      assert.deepEqual(await names('organizations', { or__name: 'alpha', or__max_hosts: '20' }), ['alpha', 'beta']);
      assert.deepEqual(await names('organizations', [['or__name', 'alpha'], ['or__name', 'beta'], ['max_hosts', '20']]), ['beta']);
      assert.deepEqual(await names('users', { or__is_superuser: 'true', or__teams__name: 'dev' }), ['admin', 'bob']);
      assert.deepEqual(await names('organizations', { or__not__max_hosts: '0', or__name: 'pct%sign' }), ['alpha', 'beta', 'pct%sign']);
    });

    it('chain__ filters must all hold', async () => {
      assert.deepEqual(await names('users', [['chain__teams__name', 'ops'], ['chain__teams__name', 'dev']]), ['bob']);
      assert.deepEqual(await names('users', { chain__teams__name: 'ops', chain__not__username: 'bob' }), ['alice']);
    });
  });

  describe('search', () => {
    it('one term, case-insensitive, over the search fields', async () => {
      assert.deepEqual(await names('organizations', { search: 'lph' }), ['alpha']);
      assert.deepEqual(await names('organizations', { search: 'FIRST' }), ['alpha']);
      assert.deepEqual(await names('users', { search: 'smith' }), ['carol']);
      assert.deepEqual(await names('users', { search: 'example' }), ['alice', 'bob']);
      assert.deepEqual(await names('organizations', { search: 'nothing-like-this' }), []);
    });

    it('comma- or space-separated terms must all match', async () => {
      assert.deepEqual(await names('users', { search: 'example,alice' }), ['alice']);
      assert.deepEqual(await names('users', { search: 'example alice' }), ['alice']);
      assert.deepEqual(await names('users', { search: 'alice,bob' }), []);
      assert.deepEqual(await names('organizations', { search: 'alpha,', name__in: 'alpha,beta' }), ['alpha']);
    });

    it('combines with filters', async () => {
      assert.deepEqual(await names('users', { search: 'example', is_system_auditor: 'true' }), ['bob']);
    });
  });

  describe('order_by', () => {
    it('ascending and descending', async () => {
      assert.deepEqual(await names('organizations', { name__in: 'alpha,beta', order_by: 'name' }, true), ['alpha', 'beta']);
      assert.deepEqual(await names('organizations', { name__in: 'alpha,beta', order_by: '-name' }, true), ['beta', 'alpha']);
      assert.deepEqual(await names('users', { order_by: '-username' }, true), ['carol', 'bob', 'alice', 'admin']);
      assert.deepEqual(await names('organizations', { name__in: 'alpha,beta', order_by: '-id' }, true), ['beta', 'alpha']);
      assert.deepEqual(await names('organizations', { name__in: 'alpha,beta', order: '-name' }, true), ['beta', 'alpha']);
    });

    it('several fields', async () => {
      const set = 'alpha,beta,pct%sign,underXscore';
      assert.deepEqual(await names('organizations', { name__in: set, order_by: '-max_hosts,name' }, true), ['beta', 'alpha', 'pct%sign', 'underXscore']);
      assert.deepEqual(await names('organizations', { name__in: set, order_by: 'max_hosts,-name' }, true), ['underXscore', 'pct%sign', 'alpha', 'beta']);
    });

    it('a related field', async () => {
      assert.deepEqual(await names('teams', { order_by: 'organization__name,name' }, true), ['dev@alpha', 'ops@alpha', 'ops@beta']);
      assert.deepEqual(await names('teams', { order_by: '-organization__name,name' }, true), ['ops@beta', 'dev@alpha', 'ops@alpha']);
      assert.deepEqual(await names('teams', { order_by: '-organization,-name' }, true), ['ops@beta', 'ops@alpha', 'dev@alpha']);
    });

    it('unknown or secret fields are 400', async () => {
      for (const [path, order_by] of [
        ['organizations', 'nosuch'],
        ['organizations', '-nosuch'],
        ['teams', 'organization__nosuch'],
        ['users', 'password'],
        ['users', '-password'],
        ['organizations', 'created_by__password'],
      ]) {
        const res = await status(path, { order_by });
        assert.equal(res.status, 400, `${path} ${order_by}`);
        assert.equal(typeof res.body.detail, 'string');
      }
    });
  });

  describe('type', () => {
    it('type= keeps a list of that type and empties any other', async () => {
      assert.deepEqual(await names('organizations', { type: 'organization', name: 'alpha' }), ['alpha']);
      assert.deepEqual(await names('organizations', { type: 'team,organization', name: 'alpha' }), ['alpha']);
      assert.deepEqual(await names('organizations', { type: 'team', name: 'alpha' }), []);
    });

    it('order_by=type is accepted and changes nothing', async () => {
      assert.deepEqual(await names('organizations', { name__in: 'alpha,beta', order_by: 'type,-name' }, true), ['beta', 'alpha']);
      assert.deepEqual(await names('organizations', { name__in: 'alpha,beta', order_by: '-type' }, true), ['alpha', 'beta']);
    });
  });

  describe('refusals', () => {
    it('unknown field → 400', async () => {
      assert.deepEqual(await status('organizations', { nosuch: '1' }), { status: 400, body: { detail: 'Cannot filter on "nosuch": no such field.' } });
      assert.equal((await status('organizations', { not__nosuch: '1' })).status, 400);
      assert.equal((await status('organizations', { __name: '1' })).status, 400);
    });

    it('filtering on a password → 403 {detail}', async () => {
      for (const [path, params] of [
        ['users', { password: 'x' }],
        ['users', { password__startswith: '$argon2' }],
        ['users', { not__password: 'x' }],
        ['users', { or__password__isnull: 'false' }],
        ['teams', { users__password: 'x' }],
        ['organizations', { users__password__startswith: '$' }],
        ['organizations', { created_by__password__regex: '.' }],
      ] as const) {
        const res = await status(path, params);
        assert.equal(res.status, 403, `${path} ${JSON.stringify(params)}`);
        assert.deepEqual(Object.keys(res.body), ['detail']);
        assert.match(res.body.detail, /password/);
      }
    });

    it('an invalid regular expression → 400', async () => {
      for (const params of <Record<string, string>[]>[{ name__regex: '(' }, { name__iregex: '[a-' }, { max_hosts__regex: '*' }]) {
        const res = await status('organizations', params);
        assert.equal(res.status, 400, JSON.stringify(params));
        assert.equal(typeof res.body.detail, 'string');
      }
    });

    it('a refused filter on a related list is refused too', async () => {
      const res = await t.get(`/api/v2/organizations/${orgIds.alpha}/users/?password__startswith=x`);
      assert.equal(res.status, 403);
      const bad = await t.get(`/api/v2/organizations/${orgIds.alpha}/users/?is_superuser=maybe`);
      assert.equal(bad.status, 400);
    });
  });
});
