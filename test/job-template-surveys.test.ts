import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, newOrg, type TestApp } from './helpers/app.ts';
import { makeRepository, type GitRepository } from './helpers/git.ts';
import { eventually, waitForRun } from './helpers/jobs.ts';
import { validateSurveyAnswers, validateSurveySpec } from '../src/resources/job-templates/survey-spec.ts';
import { decryptSecret, decryptWithKey } from '../src/secrets/encryption.ts';
import { reencryptAll } from '../src/secrets/rotation.ts';
import { SECRET_STORES } from '../src/composition/root.ts';

// Rows here are still read untyped: this file is not yet converted to its tables' generated row types
// (docs/architecture.md, "Typed rows"). Remove AnyRow once it is.
type AnyRow = any;

const question = (fields: Record<string, unknown>) => ({ question_name: 'Q', required: false, type: 'text', variable: 'v', ...fields });
const survey = (...questions: unknown[]) => ({ name: 'S', description: 'D', spec: questions });

describe('survey spec validation', () => {
  const bad: [unknown, RegExp][] = [
    [[], /Expected dict/],
    [{ description: '', spec: [question({})] }, /'name' missing/],
    [{ name: '', spec: [question({})] }, /'description' missing/],
    [{ name: '', description: '' }, /'spec' missing/],
    [{ name: '', description: '', spec: {} }, /must be a list/],
    [survey(), /doesn't contain any items/],
    [survey('x'), /not a json object/],
    [survey({ question_name: 'Q', type: 'text', required: true }), /'variable' missing/],
    [survey(question({ type: 'date' })), /'date' in survey question 0 is not one of/],
    [survey(question({}), question({})), /'variable' 'v' duplicated in survey question 1/],
    [survey(question({ required: 'yes' })), /expected to be boolean/],
    [survey(question({ min: 'a' })), /'min' in survey question 0 expected to be int/],
    [survey(question({ type: 'integer', default: 'x' })), /expected to be int/],
    [survey(question({ type: 'float', default: 'x' })), /expected to be float/],
    [survey(question({ default: 3 })), /expected to be string/],
    [survey(question({ type: 'multiplechoice', choices: ['a', 'b'], default: 'c' })), /Default choice must be answered from the choices listed/],
    [survey(question({ type: 'multiselect', choices: 'a\nb', default: 'a\nz' })), /Default choice must be answered/],
    [survey(question({ type: 'multiplechoice' })), /'choices'/],
    [survey(question({ default: '$encrypted$' })), /reserved keyword/],
  ];
  for (const [spec, message] of bad) {
    it(`refuses ${JSON.stringify(spec).slice(0, 90)}`, () => {
      const errors = validateSurveySpec(spec);
      assert.ok(errors, 'refused');
      assert.match(errors.error[0], message);
    });
  }
  it('accepts every question type with valid defaults and choices as list or text', () => {
    assert.equal(
      validateSurveySpec(survey(
        question({ variable: 'a', default: 'x', min: 0, max: 5 }),
        question({ variable: 'b', type: 'textarea' }),
        question({ variable: 'c', type: 'password', default: 'pw' }),
        question({ variable: 'd', type: 'integer', default: 3, min: 1, max: 9 }),
        question({ variable: 'e', type: 'float', default: 1.5 }),
        question({ variable: 'f', type: 'multiplechoice', choices: 'x\ny', default: 'y' }),
        question({ variable: 'g', type: 'multiselect', choices: ['x', 'y'], default: 'x\ny' }),
      )),
      null,
    );
  });
});

describe('survey answer validation', () => {
  const spec = survey(
    question({ variable: 'name', required: true, min: 2, max: 4 }),
    question({ variable: 'count', type: 'integer', min: 1, max: 3, default: 2 }),
    question({ variable: 'ratio', type: 'float' }),
    question({ variable: 'env', type: 'multiplechoice', choices: ['dev', 'prod'] }),
    question({ variable: 'tags', type: 'multiselect', choices: 'a\nb' }),
  ) as any;
  it('applies defaults and keeps valid answers', () => {
    const { values, errors } = validateSurveyAnswers(spec, { name: 'abc', ratio: 0.5, env: 'dev', tags: ['a', 'b'], unrelated: 1 });
    assert.deepEqual(errors, {});
    assert.deepEqual(values, { name: 'abc', count: 2, ratio: 0.5, env: 'dev', tags: ['a', 'b'] });
  });
  it('reports each bad answer by variable', () => {
    const { errors } = validateSurveyAnswers(spec, { count: 7, ratio: 'x', env: 'qa', tags: 'a' });
    assert.match(errors.name[0], /'name' value missing/);
    assert.match(errors.count[0], /too large/);
    assert.match(errors.ratio[0], /numeric/);
    assert.match(errors.env[0], /expected to be one of/);
    assert.match(errors.tags[0], /expected to be a list/);
    assert.match(validateSurveyAnswers(spec, { name: 'a' }).errors.name[0], /too small/);
    assert.match(validateSurveyAnswers(spec, { name: 'abcde' }).errors.name[0], /too large/);
    assert.match(validateSurveyAnswers(spec, { name: 5 }).errors.name[0], /expected to be a string/);
  });
});

describe('survey spec endpoints', () => {
  let t: TestApp;
  let repo: GitRepository;
  let jt: number;

  before(async () => {
    t = await createTestApp();
    repo = await makeRepository({ 'site.yml': '- hosts: all\n  tasks: []\n' });
    const orgId = (await newOrg(t)).id;
    const project = (await t.post('/api/v2/projects/', { name: 'p', organization: orgId, scm_type: 'git', scm_url: `file://${repo.bare}` })).body.id;
    const first = await eventually(async () => (await t.get(`/api/v2/projects/${project}/project_updates/`)).body.results[0]);
    await waitForRun(t, first.url);
    const inventory = (await t.post('/api/v2/inventories/', { name: 'inv', organization: orgId })).body.id;
    const res = await t.post('/api/v2/job_templates/', { name: 'jt', project, inventory, playbook: 'site.yml', survey_enabled: true });
    assert.equal(res.status, 201, res.text);
    jt = res.body.id;
  });
  after(async () => {
    await t.close();
    await repo.remove();
  });

  const url = () => `/api/v2/job_templates/${jt}/survey_spec/`;
  const storedSpec = async () => (await t.db.query<AnyRow>('SELECT survey_spec FROM job_templates WHERE id = $1', [jt]))[0].survey_spec;
  const spec = survey(
    question({ variable: 'secret', type: 'password', default: 'hunter2', required: true }),
    question({ variable: 'who', required: true }),
    question({ variable: 'level', type: 'integer', default: 1 }),
  );

  it('answers {} before a survey exists', async () => {
    assert.deepEqual((await t.get(url())).body, {});
  });

  it('refuses an invalid spec with 400 and keeps the old one', async () => {
    const res = await t.post(url(), survey(question({}), question({})));
    assert.equal(res.status, 400);
    assert.match(res.body.error, /duplicated/);
    assert.deepEqual(await storedSpec(), {});
  });

  it('stores password defaults encrypted and shows them as $encrypted$', async () => {
    assert.equal((await t.post(url(), spec)).status, 200);
    const stored = await storedSpec();
    assert.match(stored.spec[0].default, /^\$encrypted\$AESGCM/);
    assert.equal(decryptSecret('survey.secret', stored.spec[0].default), 'hunter2');
    const shown = (await t.get(url())).body;
    assert.equal(shown.spec[0].default, '$encrypted$');
    assert.equal(shown.spec[2].default, 1);
    assert.doesNotMatch((await t.get(`/api/v2/job_templates/${jt}/activity_stream/`)).text, /hunter2/);
  });

  it('keeps the stored password default when $encrypted$ is sent back', async () => {
    const before = (await storedSpec()).spec[0].default;
    const shown = (await t.get(url())).body;
    shown.spec[1].question_name = 'Who?';
    assert.equal((await t.post(url(), shown)).status, 200);
    const after = await storedSpec();
    assert.equal(after.spec[0].default, before);
    assert.equal(after.spec[1].question_name, 'Who?');
  });

  it('describes what a launch needs from the survey', async () => {
    const body = (await t.get(`/api/v2/job_templates/${jt}/launch/`)).body;
    assert.equal(body.survey_enabled, true);
    assert.deepEqual(body.variables_needed_to_start, ['who']);
    assert.equal(body.can_start_without_user_input, false);
  });

  it('copies the survey with its encrypted password', async () => {
    const copy = await t.post(`/api/v2/job_templates/${jt}/copy/`, { name: 'jt copy' });
    assert.equal(copy.status, 201, copy.text);
    const [row] = await t.db.query<AnyRow>('SELECT survey_spec, survey_enabled FROM job_templates WHERE id = $1', [copy.body.id]);
    assert.equal(row.survey_enabled, true);
    assert.equal(decryptSecret('survey.secret', row.survey_spec.spec[0].default), 'hunter2');
  });

  it('re-encrypts password defaults under a new secret key', async () => {
    const counts = await t.db.transaction((tx) => reencryptAll(tx, SECRET_STORES, t.env.secretKey, 'a-new-key'));
    assert.equal(counts['survey passwords'], 2, 'the template and its copy');
    assert.equal(decryptWithKey('a-new-key', 'survey.secret', (await storedSpec()).spec[0].default), 'hunter2');
    // Back to the service's key for the rest of the file.
    await t.db.transaction((tx) => reencryptAll(tx, SECRET_STORES, 'a-new-key', t.env.secretKey));
    assert.equal(decryptSecret('survey.secret', (await storedSpec()).spec[0].default), 'hunter2');
  });

  it('deletes the survey', async () => {
    assert.equal((await t.delete(url())).status, 200);
    assert.deepEqual(await storedSpec(), {});
    assert.equal((await t.get(`/api/v2/job_templates/${jt}/launch/`)).body.survey_enabled, false);
  });
});
