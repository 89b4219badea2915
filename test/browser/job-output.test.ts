import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, grant, type TestApp } from '../helpers/app.ts';
import { consolePage } from '../helpers/browser.ts';
import { makeRepository, type GitRepository } from '../helpers/git.ts';
import { eventually, firstProjectUpdate, waitForRun } from '../helpers/jobs.ts';
import { createDemoData } from '../../src/server/demo-data.ts';

const FAIL_ON_H2 = `- hosts: all
  gather_facts: false
  tasks:
    - name: greet
      debug: msg="hello {{ inventory_hostname }}"
    - name: fail on h2
      fail: msg=boom
      when: inventory_hostname == 'h2'
`;

describe('job output page', () => {
  let t: TestApp;
  let repo: GitRepository;

  before(async () => {
    t = await createTestApp();
    repo = await makeRepository({ 'fail.yml': FAIL_ON_H2 });
  });
  after(async () => {
    await t.close();
    await repo.remove();
  });

  it('streams the Demo Job Template live to PLAY RECAP, then opens an event and finds a line', async () => {
    assert.equal(await createDemoData(t.services), true);
    const jt = (await t.get('/api/v2/job_templates/?name=Demo Job Template')).body.results[0];
    await firstProjectUpdate(t, jt.project);
    const { page, open, shot, errors, close } = await consolePage(t);
    const liveEvents: string[] = [];
    page.on('websocket', (ws) => ws.on('framereceived', ({ payload }) => void (String(payload).includes('"group_name":"job_events"') && liveEvents.push(String(payload)))));

    const launched = await t.post(`/api/v2/job_templates/${jt.id}/launch/`, {});
    assert.equal(launched.status, 201, launched.text);
    await open(`/jobs/${launched.body.id}`);
    await page.getByRole('heading', { name: `${launched.body.id} - Demo Job Template` }).waitFor();
    await page.locator('.drover-output-line', { hasText: 'PLAY RECAP' }).waitFor();
    await page.locator('[data-testid="run-status"] [data-status="successful"]').waitFor();
    assert.ok(liveEvents.length > 0, 'events came over the websocket while the job ran');
    assert.equal((await page.locator('.drover-output-line', { hasText: 'PLAY RECAP' }).count()), 1, 'no line shown twice');
    await page.locator('[data-host-status="ok"]', { hasText: 'ok 1' }).waitFor();
    await shot('job-output-demo');

    await page.locator('.drover-output-line', { hasText: 'ok: [localhost]' }).click();
    const modal = page.getByRole('dialog', { name: 'Event on localhost' });
    await modal.waitFor();
    assert.equal(await modal.locator('[data-event-field="task"]').innerText(), 'Hello Message');
    assert.equal(await modal.locator('[data-event-field="module"]').innerText(), 'ansible.builtin.debug');
    assert.match(await modal.getByLabel('Result JSON').innerText(), /"msg": "Hello World!"/);
    await shot('job-output-event-detail');
    await modal.getByRole('button', { name: 'Close' }).first().click();
    await modal.waitFor({ state: 'detached' });

    await page.getByRole('textbox', { name: 'Search the output' }).fill('hello world');
    await page.locator('.drover-output-line.is-current-match mark').first().waitFor();
    assert.match(await page.locator('.drover-output-line.is-current-match').innerText(), /Hello World/);
    const count = page.locator('.drover-output-search .pf-v6-c-badge');
    await eventually(async () => /^1 \/ 2\b/.test(await count.innerText()), 10_000, 'two matches, the first current');
    await page.getByRole('button', { name: 'Next' }).click();
    await eventually(async () => /^2 \/ 2\b/.test(await count.innerText()), 10_000, 'the second match current');
    assert.match(await page.locator('.drover-output-line.is-current-match').innerText(), /"msg": "Hello World!"/);
    await shot('job-output-search');
    assert.deepEqual(errors, []);
    await close();
  });

  it('folds a play, jumps to the first failure and relaunches on the failed host only', async () => {
    const org = (await t.get('/api/v2/organizations/?name=Default')).body.results[0].id;
    const project = (await t.post('/api/v2/projects/', { name: 'Failing', organization: org, scm_type: 'git', scm_url: `file://${repo.bare}` })).body.id;
    await firstProjectUpdate(t, project);
    const inventory = (await t.post('/api/v2/inventories/', { name: 'Two local hosts', organization: org, variables: 'ansible_connection: local\nansible_python_interpreter: /usr/bin/python3' })).body.id;
    for (const name of ['h1', 'h2']) assert.equal((await t.post('/api/v2/hosts/', { name, inventory })).status, 201);
    const jt = (await t.post('/api/v2/job_templates/', { name: 'Fails on h2', project, inventory, playbook: 'fail.yml' })).body;
    const first = await waitForRun(t, (await t.post(`/api/v2/job_templates/${jt.id}/launch/`, {})).body.url, 120_000);
    assert.equal(first.status, 'failed');

    const { page, open, shot, errors, close } = await consolePage(t);
    await open(`/jobs/${first.id}`);
    await page.locator('.drover-output-line', { hasText: 'PLAY RECAP' }).waitFor();
    await page.locator('[data-host-status="failed"]', { hasText: 'failed 1' }).waitFor();

    const taskLine = page.locator('.drover-output-line', { hasText: 'TASK [greet]' });
    await page.getByRole('button', { name: /^Collapse PLAY \[all\]/ }).click();
    await taskLine.waitFor({ state: 'detached' });
    await page.getByRole('button', { name: /^Expand PLAY \[all\]/ }).click();
    await taskLine.waitFor();

    await page.getByRole('button', { name: 'First failure' }).click();
    await page.locator('.drover-output-line', { hasText: 'fatal: [h2]' }).waitFor();
    await shot('job-output-failed');

    await page.getByRole('button', { name: 'Relaunch' }).click();
    await page.getByRole('menuitem', { name: /Relaunch on failed hosts/ }).click();
    await page.waitForURL((url) => /^\/jobs\/\d+$/.test(url.pathname) && url.pathname !== `/jobs/${first.id}`);
    const relaunchedId = Number(new URL(page.url()).pathname.split('/')[2]);
    const relaunched = (await t.get(`/api/v2/jobs/${relaunchedId}/`)).body;
    assert.equal(relaunched.launch_type, 'relaunch');
    assert.equal(relaunched.limit, 'h2');
    const done = await waitForRun(t, relaunched.url, 120_000);
    const hosts = (await t.get(`/api/v2/jobs/${done.id}/job_host_summaries/`)).body.results.map((r: any) => r.host_name);
    assert.deepEqual(hosts, ['h2']);
    await page.locator('[data-testid="run-status"] [data-status="failed"]').waitFor();
    assert.deepEqual(errors, []);
    await close();

    // Someone who may only read the template's jobs sees neither relaunch nor cancel.
    const reader = await t.createUser('output-reader');
    await grant(t, reader, jt, 'read_role');
    await eventually(async () => (await t.get(`/api/v2/jobs/${first.id}/`, { as: reader })).status === 200);
    const view = await consolePage(t, reader, `/jobs/${first.id}`);
    await view.page.locator('.drover-output-line', { hasText: 'PLAY RECAP' }).waitFor();
    assert.equal(await view.page.getByRole('button', { name: 'Relaunch' }).count(), 0);
    assert.equal(await view.page.getByRole('button', { name: 'Cancel' }).count(), 0);
    await view.close();
  });
});
