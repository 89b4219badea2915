import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { access, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createTestApp, grant, newOrg, newUser, type TestApp, type User } from './helpers/app.ts';
import { makeRepository, type GitRepository } from './helpers/git.ts';
import { firstProjectUpdate, waitForRun } from './helpers/jobs.ts';
import { deliver, hmacHex, pushHeaders, pushPayload, type Service } from './helpers/webhook-deliveries.ts';
import { extraVarsYaml } from '../src/ansible/extra-vars-file.ts';
import { WEBHOOK_KEY_PURPOSE } from '../src/resources/webhooks/webhook-fields.ts';
import { webhookKeySecrets } from '../src/resources/webhooks/webhook-key-rotation.ts';
import { decryptWithKey, encryptWithKey } from '../src/secrets/encryption.ts';

// Rows here are still read untyped: this file is not yet converted to its tables' generated row types
// (docs/architecture.md, "Typed rows"). Remove AnyRow once it is.
type AnyRow = any;

const SHOW = `- hosts: all
  gather_facts: false
  tasks:
    - debug:
        msg: "event=[{{ awx_webhook_event_type }}] ref=[{{ awx_webhook_event_ref }}] note=[{{ awx_webhook_payload.note | default('none') }}]"
`;
const SERVICES: Service[] = ['github', 'gitlab', 'bitbucket_dc', 'gitea', 'azure_devops'];

describe('template webhooks', () => {
  let t: TestApp;
  let repo: GitRepository;
  let markers: string;
  let org: any;
  let otherOrgAdmin: User;
  let member: User;
  let templateAdmin: User;
  let base: Record<string, unknown>;

  const count = async (table: string, where = 'true') => (await t.db.query<AnyRow>(`SELECT count(*)::int AS n FROM ${table} WHERE ${where}`))[0].n as number;
  const creatorOf = async (jobId: number) => (await t.db.query<AnyRow>('SELECT created_by_id FROM unified_jobs WHERE id = $1', [jobId]))[0].created_by_id;
  const keyOf = async (id: number) => (await t.get(`/api/v2/job_templates/${id}/webhook_key/`)).body.webhook_key as string;
  const hooked = async (service: string, fields: Record<string, unknown> = {}) => {
    const res = await t.post('/api/v2/job_templates/', { ...base, name: `hooked-${randomUUID()}`, webhook_service: service, ...fields });
    assert.equal(res.status, 201, res.text);
    return res.body;
  };

  before(async () => {
    t = await createTestApp();
    markers = await mkdtemp(path.join(tmpdir(), 'webhook-markers-'));
    // Runs see the markers directory (read-write), so a command that ran would leave its marker.
    assert.equal((await t.patch('/api/v2/settings/jobs/', { AWX_ISOLATION_SHOW_PATHS: [`${markers}:${markers}:rw`] })).status, 200);
    repo = await makeRepository({ 'show.yml': SHOW });
    org = await newOrg(t);
    const other = await newOrg(t);
    otherOrgAdmin = await newUser(t, { admin: [other.id] });
    member = await newUser(t, { member: [org.id] });
    templateAdmin = await newUser(t, { member: [org.id] });
    const project = (await t.post('/api/v2/projects/', { name: 'Plays', organization: org.id, scm_type: 'git', scm_url: `file://${repo.bare}` })).body.id;
    await firstProjectUpdate(t, project);
    const inventory = (await t.post('/api/v2/inventories/', { name: 'Local', organization: org.id, variables: 'ansible_connection: local\nansible_python_interpreter: /usr/bin/python3' })).body.id;
    await t.post('/api/v2/hosts/', { name: 'h1', inventory });
    base = { project, inventory, playbook: 'show.yml' };
  });
  after(async () => {
    await t.close();
    await repo.remove();
  });

  describe('the key', () => {
    it('is made with the service, shown only at webhook_key/ to admins, rotated by POST and cleared with the service', async () => {
      const jt = await hooked('github');
      assert.equal(jt.related.webhook_key, `/api/v2/job_templates/${jt.id}/webhook_key/`);
      assert.equal(jt.related.webhook_receiver, `/api/v2/job_templates/${jt.id}/github/`);
      assert.equal(jt.webhook_key, undefined);
      const key = await keyOf(jt.id);
      assert.match(key, /^[A-Za-z0-9]{50}$/);
      const [stored] = await t.db.query<AnyRow>('SELECT webhook_key FROM job_templates WHERE id = $1', [jt.id]);
      assert.ok(stored.webhook_key.startsWith('$encrypted$'), 'encrypted at rest');
      assert.ok(!(await t.get(`/api/v2/job_templates/${jt.id}/`)).text.includes(key));
      assert.ok(!(await t.get(`/api/v2/activity_stream/?object1=job_template`)).text.includes(key));

      const copy = await t.post(`/api/v2/job_templates/${jt.id}/copy/`, { name: `copy-${jt.id}` });
      assert.equal(copy.status, 201, copy.text);
      assert.equal(copy.body.webhook_service, 'github');
      const copyKey = await keyOf(copy.body.id);
      assert.match(copyKey, /^[A-Za-z0-9]{50}$/);
      assert.notEqual(copyKey, key, 'a copy has its own key');

      const rotated = await t.post(`/api/v2/job_templates/${jt.id}/webhook_key/`, {});
      assert.equal(rotated.status, 201, rotated.text);
      assert.notEqual(rotated.body.webhook_key, key);
      assert.equal(await keyOf(jt.id), rotated.body.webhook_key);

      // Changing the service makes a new key; the same service keeps it.
      assert.equal((await t.patch(`/api/v2/job_templates/${jt.id}/`, { webhook_service: 'github', description: 'x' })).status, 200);
      assert.equal(await keyOf(jt.id), rotated.body.webhook_key);
      assert.equal((await t.patch(`/api/v2/job_templates/${jt.id}/`, { webhook_service: 'gitlab' })).status, 200);
      assert.notEqual(await keyOf(jt.id), rotated.body.webhook_key);

      const tokenType = (await t.get('/api/v2/credential_types/?namespace=gitlab_token')).body.results[0].id;
      const token = (await t.post('/api/v2/credentials/', { name: `gl-${jt.id}`, organization: org.id, credential_type: tokenType, inputs: { token: 'glpat' } })).body.id;
      assert.equal((await t.patch(`/api/v2/job_templates/${jt.id}/`, { webhook_credential: token })).status, 200);
      const cleared = await t.patch(`/api/v2/job_templates/${jt.id}/`, { webhook_service: '' });
      assert.equal(cleared.status, 200, cleared.text);
      assert.equal(cleared.body.webhook_credential, null);
      assert.equal(cleared.body.related.webhook_receiver, '');
      assert.equal(await keyOf(jt.id), '');
    });

    it('takes part in regenerate_secret_key', async () => {
      const jt = await hooked('gitea');
      const key = await keyOf(jt.id);
      const newKey = 'n'.repeat(64);
      const store = webhookKeySecrets('job_templates', 'job template webhook keys');
      const count = await t.db.transaction((tx) => store.reencrypt(tx, (purpose, stored) => encryptWithKey(newKey, purpose, decryptWithKey(t.env.secretKey, purpose, stored))));
      assert.ok(count >= 1);
      const [row] = await t.db.query<AnyRow>('SELECT webhook_key FROM job_templates WHERE id = $1', [jt.id]);
      assert.equal(decryptWithKey(newKey, WEBHOOK_KEY_PURPOSE, row.webhook_key), key);
      await t.db.transaction((tx) => store.reencrypt(tx, (purpose, stored) => encryptWithKey(t.env.secretKey, purpose, decryptWithKey(newKey, purpose, stored))));
      assert.equal(await keyOf(jt.id), key);
    });

    it('refuses plain users, executors and other organizations\' admins (403), and answers the template admin', async () => {
      const jt = await hooked('github');
      await grant(t, member, `/api/v2/job_templates/${jt.id}/`, 'execute_role');
      await grant(t, templateAdmin, `/api/v2/job_templates/${jt.id}/`, 'admin_role');
      for (const who of [member, otherOrgAdmin]) {
        assert.equal((await t.get(`/api/v2/job_templates/${jt.id}/webhook_key/`, { as: who })).status, 403);
        assert.equal((await t.post(`/api/v2/job_templates/${jt.id}/webhook_key/`, {}, { as: who })).status, 403);
      }
      assert.equal((await t.get(`/api/v2/job_templates/${jt.id}/webhook_key/`, { as: null })).status, 401);
      const key = await keyOf(jt.id);
      assert.equal(await keyOf(jt.id), key, 'refused rotations changed nothing');
      const own = await t.get(`/api/v2/job_templates/${jt.id}/webhook_key/`, { as: templateAdmin });
      assert.deepEqual([own.status, own.body], [200, { webhook_key: key }]);
    });

    it('offers every service, and a credential must be a token of the service', async () => {
      const options = await t.request('OPTIONS', '/api/v2/job_templates/');
      assert.deepEqual(options.body.actions.POST.webhook_service.choices.map((c: any) => c[0]), ['', ...SERVICES]);
      const giteaType = (await t.get('/api/v2/credential_types/?namespace=gitea_token')).body.results[0];
      const azureType = (await t.get('/api/v2/credential_types/?namespace=azure_devops_token')).body.results[0];
      assert.deepEqual([giteaType.kind, azureType.kind], ['token', 'token']);
      const gitea = (await t.post('/api/v2/credentials/', { name: 'gitea-token', organization: org.id, credential_type: giteaType.id, inputs: { token: 't' } })).body.id;
      const refused = await t.post('/api/v2/job_templates/', { ...base, name: 'mismatch', webhook_service: 'azure_devops', webhook_credential: gitea });
      assert.deepEqual([refused.status, refused.body], [400, { webhook_credential: ['Must match the selected webhook service.'] }]);
      assert.equal((await hooked('gitea', { webhook_credential: gitea })).webhook_credential, gitea);
    });
  });

  describe('receivers', () => {
    for (const service of SERVICES) {
      it(`${service}: a signed push launches one job with the webhook variables, as the system`, async () => {
        const jt = await hooked(service);
        const key = await keyOf(jt.id);
        const sha = 'a'.repeat(40);
        const body = JSON.stringify(pushPayload(service, sha, { note: 'hello' }));
        const guid = randomUUID();
        const res = await deliver(t, jt.id, service, body, pushHeaders(service, key, body, guid));
        assert.equal(res.status, 202, res.text);
        assert.equal(typeof res.body.job, 'number');
        const job = (await t.get(`/api/v2/jobs/${res.body.job}/`)).body;
        assert.equal(job.launch_type, 'webhook');
        assert.equal(job.job_template, jt.id);
        assert.equal(job.webhook_service, service);
        assert.equal(await creatorOf(job.id), null);
        const vars = JSON.parse(job.extra_vars);
        assert.equal(vars.awx_webhook_event_ref, sha);
        assert.deepEqual(vars.awx_webhook_payload, JSON.parse(body));
        for (const name of ['event_type', 'event_guid', 'event_ref', 'status_api', 'payload']) {
          assert.deepEqual(vars[`tower_webhook_${name}`], vars[`awx_webhook_${name}`], name);
        }
        assert.equal(vars.awx_webhook_event_guid, job.webhook_guid);
        if (service !== 'azure_devops') assert.equal(job.webhook_guid, guid);
        assert.ok(vars.awx_webhook_status_api, 'a status API is known');
        assert.equal(await count('unified_jobs', `job_template_id = ${jt.id}`), 1);
      });
    }

    it('the job runs the playbook with the payload, whose templates stay text even when every extra var may be a template', async () => {
      assert.equal((await t.patch('/api/v2/settings/jobs/', { ALLOW_JINJA_IN_EXTRA_VARS: 'always' })).status, 200);
      try {
        const jt = await hooked('github');
        const marker = path.join(markers, 'payload');
        const note = `{{ lookup('pipe', 'touch ${marker}') }}{{ lookup('pipe','id') }}`;
        const body = JSON.stringify(pushPayload('github', 'b'.repeat(40), { note }));
        const res = await deliver(t, jt.id, 'github', body, pushHeaders('github', await keyOf(jt.id), body, randomUUID()));
        assert.equal(res.status, 202, res.text);
        const job = await waitForRun(t, `/api/v2/jobs/${res.body.job}/`, 120_000);
        assert.equal(job.status, 'successful', job.job_explanation);
        const stdout = (await t.get(`/api/v2/jobs/${job.id}/stdout/?format=txt`)).text;
        assert.ok(stdout.includes(`note=[${note}]`), stdout);
        assert.ok(stdout.includes(`event=[push] ref=[${'b'.repeat(40)}]`), stdout);
        assert.equal(await access(marker).then(() => true, () => false), false, 'the lookup ran');
      } finally {
        await t.patch('/api/v2/settings/jobs/', { ALLOW_JINJA_IN_EXTRA_VARS: 'template' });
      }
    });

    it('webhook variables are unsafe even when every extra var may be a template', () => {
      const yaml = extraVarsYaml({ awx_webhook_payload: { a: '{{ x }}' }, tower_webhook_event_ref: '{{ y }}', own: '{{ z }}' }, {}, 'all');
      assert.equal(yaml, '{"awx_webhook_payload": {"a": !unsafe "{{ x }}"}, "tower_webhook_event_ref": !unsafe "{{ y }}", "own": "{{ z }}"}\n');
    });

    it('refuses wrong, missing, truncated and other bodies\' signatures (403), launching nothing', async () => {
      const jt = await hooked('github');
      const key = await keyOf(jt.id);
      const body = JSON.stringify(pushPayload('github', 'c'.repeat(40)));
      const good = pushHeaders('github', key, body, randomUUID());
      const { 'x-hub-signature-256': signature, ...unsigned } = good;
      const cases: Array<[string, Record<string, string>, string]> = [
        ['missing', unsigned, body],
        ['wrong key', { ...unsigned, 'x-hub-signature-256': `sha256=${hmacHex('sha256', 'not-the-key', body)}` }, body],
        ['other body', good, body.replace('refs/heads/main', 'refs/heads/evil')],
        ['truncated', { ...unsigned, 'x-hub-signature-256': signature.slice(0, -2) }, body],
        ['empty', { ...unsigned, 'x-hub-signature-256': 'sha256=' }, body],
        ['not hex', { ...unsigned, 'x-hub-signature-256': `sha256=${'z'.repeat(64)}` }, body],
        ['sha1 of another key', { ...unsigned, 'x-hub-signature': `sha1=${hmacHex('sha1', 'x', body)}` }, body],
        ['unknown algorithm', { ...unsigned, 'x-hub-signature-256': `md5=${hmacHex('sha256', key, body)}` }, body],
      ];
      for (const [name, headers, sent] of cases) {
        const res = await deliver(t, jt.id, 'github', sent, headers);
        assert.equal(res.status, 403, `${name}: ${res.text}`);
      }
      const gitlab = await hooked('gitlab');
      const glBody = JSON.stringify(pushPayload('gitlab', 'c'.repeat(40)));
      const glHeaders = pushHeaders('gitlab', await keyOf(gitlab.id), glBody, randomUUID());
      for (const token of ['', 'wrong', (await keyOf(gitlab.id)).slice(0, -1)]) {
        assert.equal((await deliver(t, gitlab.id, 'gitlab', glBody, { ...glHeaders, 'x-gitlab-token': token })).status, 403);
      }
      const azure = await hooked('azure_devops');
      const azBody = JSON.stringify(pushPayload('azure_devops', 'c'.repeat(40)));
      assert.equal((await deliver(t, azure.id, 'azure_devops', azBody, { authorization: `Basic ${Buffer.from('u:wrong').toString('base64')}` })).status, 403);
      assert.equal(await count('unified_jobs', `job_template_id IN (${jt.id}, ${gitlab.id}, ${azure.id})`), 0);
      assert.equal(await count('webhook_deliveries'), await count('webhook_deliveries', 'run_id IS NOT NULL'));

      // The older sha1 signature is accepted.
      const sha1 = await deliver(t, jt.id, 'github', body, { ...unsigned, 'x-hub-signature': `sha1=${hmacHex('sha1', key, body)}` });
      assert.equal(sha1.status, 202, sha1.text);
    });

    it('every service refuses a delivery proved with another key, or an unsigned one, launching nothing', async () => {
      for (const service of SERVICES) {
        const jt = await hooked(service);
        const body = JSON.stringify(pushPayload(service, '3'.repeat(40)));
        const wrong = await deliver(t, jt.id, service, body, pushHeaders(service, 'another-key', body, randomUUID()));
        assert.equal(wrong.status, 403, `${service}: ${wrong.text}`);
        const unsigned = await deliver(t, jt.id, service, body, { 'content-type': 'application/json' });
        assert.equal(unsigned.status, 403, `${service} unsigned: ${unsigned.text}`);
        assert.equal(await count('unified_jobs', `job_template_id = ${jt.id}`), 0);
      }
    });

    it('answers 404 for another service, a template without one or no template, and 405 for other methods', async () => {
      const jt = await hooked('github');
      const body = JSON.stringify(pushPayload('gitlab', 'd'.repeat(40)));
      const key = await keyOf(jt.id);
      assert.equal((await deliver(t, jt.id, 'gitlab', body, pushHeaders('gitlab', key, body, randomUUID()))).status, 404);
      assert.equal((await deliver(t, 999999, 'github', body, pushHeaders('github', key, body, randomUUID()))).status, 404);
      const plain = (await t.post('/api/v2/job_templates/', { ...base, name: 'no-hooks' })).body;
      assert.equal((await deliver(t, plain.id, 'github', body, pushHeaders('github', '', body, randomUUID()))).status, 404);
      assert.equal((await t.get(`/api/v2/job_templates/${jt.id}/github/`, { as: null })).status, 405);
      assert.equal((await t.get(`/api/v2/job_templates/${jt.id}/github/`)).status, 405);
    });

    it('answers pings and other events 200 without a launch', async () => {
      const jt = await hooked('github');
      const key = await keyOf(jt.id);
      for (const event of ['ping', 'issues', 'release']) {
        const body = JSON.stringify({ zen: 'Keep it logically awesome.', hook_id: 1 });
        const res = await deliver(t, jt.id, 'github', body, { ...pushHeaders('github', key, body, randomUUID()), 'x-github-event': event });
        assert.deepEqual([res.status, res.body], [200, { message: 'Webhook ignored' }], event);
      }
      const bb = await hooked('bitbucket_dc');
      const ping = await deliver(t, bb.id, 'bitbucket_dc', '{"test": true}', { 'content-type': 'application/json', 'x-event-key': 'diagnostics:ping' });
      assert.equal(ping.status, 200, ping.text);
      const gl = await hooked('gitlab');
      const note = JSON.stringify({ object_kind: 'note' });
      assert.equal((await deliver(t, gl.id, 'gitlab', note, { ...pushHeaders('gitlab', await keyOf(gl.id), note, randomUUID()), 'x-gitlab-event': 'Note Hook' })).status, 200);
      assert.equal(await count('unified_jobs', `job_template_id IN (${jt.id}, ${bb.id}, ${gl.id})`), 0);
    });

    it('a replayed delivery launches nothing more, even ten at once', async () => {
      const jt = await hooked('github');
      const key = await keyOf(jt.id);
      const body = JSON.stringify(pushPayload('github', 'e'.repeat(40)));
      const headers = pushHeaders('github', key, body, randomUUID());
      const first = await deliver(t, jt.id, 'github', body, headers);
      assert.equal(first.status, 202, first.text);
      const replay = await deliver(t, jt.id, 'github', body, headers);
      assert.deepEqual([replay.status, replay.body.job], [202, first.body.job]);

      const burst = pushHeaders('github', key, body, randomUUID());
      const answers = await Promise.all(Array.from({ length: 10 }, () => deliver(t, jt.id, 'github', body, burst)));
      assert.deepEqual(answers.map((a) => a.status), Array(10).fill(202));
      assert.equal(new Set(answers.map((a) => a.body.job)).size, 1, 'every answer names the one job');
      assert.equal(await count('unified_jobs', `job_template_id = ${jt.id}`), 2);

      // GitLab without an event id: the body's digest, so the same body is the same delivery.
      const gl = await hooked('gitlab');
      const glBody = JSON.stringify(pushPayload('gitlab', 'e'.repeat(40)));
      const { 'x-gitlab-event-uuid': _, ...noUuid } = pushHeaders('gitlab', await keyOf(gl.id), glBody, '');
      assert.equal((await deliver(t, gl.id, 'gitlab', glBody, noUuid)).status, 202);
      assert.equal((await deliver(t, gl.id, 'gitlab', glBody, noUuid)).body.message, 'Webhook previously received, aborting.');
      assert.equal(await count('unified_jobs', `job_template_id = ${gl.id}`), 1);
    });

    it('a refused launch (a survey question without an answer) answers 400 and keeps nothing, so the delivery may come again', async () => {
      const jt = await hooked('gitea');
      const spec = { name: 's', description: '', spec: [{ question_name: 'Q', variable: 'must', type: 'text', required: true }] };
      assert.equal((await t.post(`/api/v2/job_templates/${jt.id}/survey_spec/`, spec)).status, 200);
      assert.equal((await t.patch(`/api/v2/job_templates/${jt.id}/`, { survey_enabled: true })).status, 200);
      const body = JSON.stringify(pushPayload('gitea', '2'.repeat(40)));
      const headers = pushHeaders('gitea', await keyOf(jt.id), body, randomUUID());
      const refused = await deliver(t, jt.id, 'gitea', body, headers);
      assert.equal(refused.status, 400, refused.text);
      assert.ok(refused.body.variables_needed_to_start);
      assert.equal(await count('unified_jobs', `job_template_id = ${jt.id}`), 0);
      assert.equal(await count('webhook_deliveries', `template_id = ${jt.id}`), 0);
      spec.spec[0] = { ...spec.spec[0], default: 'given' } as any;
      assert.equal((await t.post(`/api/v2/job_templates/${jt.id}/survey_spec/`, spec)).status, 200);
      const again = await deliver(t, jt.id, 'gitea', body, headers);
      assert.equal(again.status, 202, again.text);
      assert.equal(JSON.parse((await t.get(`/api/v2/jobs/${again.body.job}/`)).body.extra_vars).must, 'given');
    });

    it('GitHub: a form-encoded delivery (payload=<JSON>) is read, signed over the form as sent', async () => {
      const jt = await hooked('github');
      const key = await keyOf(jt.id);
      const payload = pushPayload('github', '4'.repeat(40), { note: 'a&b=c' });
      const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
      const headers = { ...pushHeaders('github', key, body, randomUUID()), 'content-type': 'application/x-www-form-urlencoded' };
      const res = await deliver(t, jt.id, 'github', body, headers);
      assert.equal(res.status, 202, res.text);
      assert.deepEqual(JSON.parse((await t.get(`/api/v2/jobs/${res.body.job}/`)).body.extra_vars).awx_webhook_payload, payload);
    });

    it('refuses a body over 1 MiB (413) and a payload that is not a JSON object (400)', async () => {
      const jt = await hooked('github');
      const key = await keyOf(jt.id);
      const big = JSON.stringify(pushPayload('github', 'f'.repeat(40), { note: 'x'.repeat(1024 * 1024) }));
      assert.equal((await deliver(t, jt.id, 'github', big, pushHeaders('github', key, big, randomUUID()))).status, 413);
      for (const body of ['not json', '[1, 2]']) {
        assert.equal((await deliver(t, jt.id, 'github', body, pushHeaders('github', key, body, randomUUID()))).status, 400, body);
      }
      assert.equal(await count('unified_jobs', `job_template_id = ${jt.id}`), 0);
    });

    it('reads no login cookie or token: a delivery carrying someone else\'s credentials still counts on its key alone', async () => {
      const jt = await hooked('github');
      const body = JSON.stringify(pushPayload('github', '1'.repeat(40)));
      const headers = pushHeaders('github', await keyOf(jt.id), body, randomUUID());
      const res = await t.request('POST', `/api/v2/job_templates/${jt.id}/github/`, { as: member, payload: body, headers });
      assert.equal(res.status, 202, res.text);
      assert.equal(await creatorOf(res.body.job), null);
      const bogus = await t.request('POST', `/api/v2/job_templates/${jt.id}/github/`, { as: { username: 'nobody', password: 'x' }, payload: body, headers: { ...headers, 'x-github-delivery': randomUUID() } });
      assert.equal(bogus.status, 202, bogus.text);
    });
  });
});
