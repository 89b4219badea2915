import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { consolePage, type ConsolePage } from '../helpers/browser.ts';
import { pickReference } from '../helpers/console-forms.ts';
import { newInventory, newJobTemplate, newOrg, newProject, newTeam, newUser, newWorkflow, type User } from '../helpers/factories.ts';
import { newCatalogItem, setSurvey, survey } from '../helpers/catalog.ts';
import { eventually } from '../helpers/jobs.ts';

const HOSTILE = '<img src=x onerror=alert(1)>';
const RUN_TIMEOUT = 120_000;

/** The row of a request in a list of requests. */
const requestRow = (page: Page, label: string, id: number) => page.locator(`table[aria-label="${label}"] tbody tr[data-id="${id}"]`);
const navLink = (page: Page, name: string) => page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true });
/** The navigation's links once the sections offered only in some cases have their answer (kept in sessionStorage as it comes). */
async function navLinks(page: Page): Promise<string[]> {
  await page.waitForFunction(() => ['/approvals', '/service_catalog_items'].every((path) => Object.keys(sessionStorage).some((key) => key.endsWith(`:${path}`))));
  await navLink(page, 'My requests').waitFor();
  return page.getByRole('navigation', { name: 'Main' }).getByRole('link').allInnerTexts();
}

/**
 * The self-service portal: an admin offers a template in the catalog, a member requests it through
 * the form generated from its survey and follows the request to its run; approvals from the inbox;
 * another organization sees nothing of it.
 */
describe('console: the self-service portal', () => {
  let t: TestApp;
  let org: number;
  let template: number;
  let member: User;
  let approver: User;
  let otherAdmin: User;
  let memberPage: ConsolePage;
  let item: number;
  let approvalItem: any;
  let workflowItem: any;

  before(async () => {
    t = await createTestApp();
    org = (await newOrg(t, { name: 'Portal org' })).id;
    const other = (await newOrg(t, { name: 'Elsewhere' })).id;
    member = await newUser(t, { username: 'portal-member', member: org });
    approver = await newUser(t, { username: 'portal-approver', member: org });
    otherAdmin = await newUser(t, { username: 'elsewhere-admin', admin: other });
    const team = await newTeam(t, org, { name: 'Approvers', members: [approver] });
    const project = await newProject(t, org, { name: 'Portal project' });
    const inventory = await newInventory(t, org, { name: 'Portal inventory', hosts: ['portal-host'] });
    template = (await newJobTemplate(t, { project, inventory, name: 'Provision', allow_simultaneous: true })).id;
    await setSurvey(t, `/api/v2/job_templates/${template}/`, survey(
      { variable: 'vm_name', question_name: 'VM name', type: 'text', required: true, min: 1, max: 32 },
      { variable: 'size', question_name: 'Size', type: 'multiplechoice', choices: ['small', 'large'], default: 'small' },
    ));
    const build = (await newJobTemplate(t, { project, inventory, name: 'Build disk', allow_simultaneous: true })).id;
    await setSurvey(t, `/api/v2/job_templates/${build}/`, survey({ variable: 'disk_gb', question_name: 'Disk (GB)', type: 'integer', required: true, min: 10, max: 100 }));
    const workflow = await newWorkflow(t, org, { name: 'Build pipeline', nodes: { build: { template: build } } });
    await setSurvey(t, `/api/v2/workflow_job_templates/${workflow.id}/`, survey({ variable: 'ticket', question_name: 'Ticket', type: 'text', required: true }));
    workflowItem = await newCatalogItem(t, org, { workflow_job_template: workflow.id }, { name: 'Build pipeline', category: 'Compute', icon: 'pf:cubes' });
    approvalItem = await newCatalogItem(t, org, { job_template: template }, {
      name: 'Database access', category: 'Access', icon: 'database', description: HOSTILE, requires_approval: true, approver_team: team.id,
    });
  });
  after(async () => {
    await memberPage?.close();
    await t?.close();
  });

  it('an admin adds a catalog item with the template picker and picks its notifications', async () => {
    const hook = (await t.post('/api/v2/notification_templates/', { name: 'Portal hook', organization: org, notification_type: 'webhook', notification_configuration: { url: 'http://127.0.0.1:9/hook', headers: {} } })).body.id;
    const c = await consolePage(t, undefined, '/service_catalog_items/add');
    try {
      const { page } = c;
      await navLink(page, 'Catalog items').waitFor();
      await page.locator('#field-name').fill('Provision VM');
      await pickReference(page, 'field-organization', 'Portal org');
      await pickReference(page, 'catalog-template', 'Provision');
      await page.locator('#field-category').fill('Compute');
      await page.locator('#field-icon').fill('server');
      await page.locator('#field-tags').fill('vm\nlinux');
      await page.locator('#field-description').fill('A virtual machine, ready in minutes.');
      await c.shot('portal-item-form');
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await page.waitForURL(/\/service_catalog_items\/\d+$/);
      item = Number(new URL(page.url()).pathname.split('/').pop());
      const saved = (await t.get(`/api/v2/service_catalog_items/${item}/`)).body;
      assert.equal(saved.job_template, template);
      assert.equal(saved.workflow_job_template, null);
      assert.deepEqual(saved.tags, ['vm', 'linux']);
      assert.equal(saved.requires_approval, false);
      assert.equal(saved.icon, 'server');

      await c.open(`/service_catalog_items/${item}/notifications`);
      await page.getByRole('switch', { name: 'Finished notifications with Portal hook' }).click({ force: true });
      await eventually(async () => (await t.get(`/api/v2/service_catalog_items/${item}/notification_templates_finished/`)).body.results.some((n: any) => n.id === hook), 10_000, 'attached');
      assert.equal((await t.get(`/api/v2/service_catalog_items/${item}/notification_templates_requested/`)).body.count, 0);
      assert.deepEqual(c.errors, []);
    } finally {
      await c.close();
    }
  });

  it('a member requests the item through its survey form and follows the request to its run', async () => {
    memberPage = await consolePage(t, member, '/catalog');
    const { page } = memberPage;
    const card = page.locator('section[aria-label="Compute"] [data-item="Provision VM"]');
    await card.getByText('A virtual machine, ready in minutes.').waitFor();
    await page.locator('section[aria-label="Access"] [data-item="Database access"]').getByText(HOSTILE).waitFor();
    assert.equal(await page.locator('img[src="x"]').count(), 0);
    const links = await navLinks(page);
    assert.ok(links.includes('Catalog') && links.includes('My requests'), links.join());
    assert.ok(!links.includes('Catalog items') && !links.includes('Approvals'), links.join());
    await memberPage.shot('portal-catalog');

    await card.getByRole('link', { name: 'Request Provision VM' }).click();
    await page.waitForURL(new RegExp(`/catalog/${item}$`));
    await page.getByRole('button', { name: 'Submit request' }).click();
    await page.locator('#survey-vm_name-help').getByText('An answer is required.').waitFor();
    assert.equal((await t.get(`/api/v2/service_requests/?catalog_item=${item}`)).body.count, 0);

    // The survey changes while the form is open: the API's refusal lands under the question.
    await setSurvey(t, `/api/v2/job_templates/${template}/`, survey(
      { variable: 'vm_name', question_name: 'VM name', type: 'text', required: true, min: 1, max: 5 },
      { variable: 'size', question_name: 'Size', type: 'multiplechoice', choices: ['small', 'large'], default: 'small' },
    ));
    await page.locator('#survey-vm_name').fill('web-server-01');
    await page.locator('#survey-size').selectOption('large');
    await page.locator('#request-justification').fill('New web tier');
    await page.getByRole('button', { name: 'Submit request' }).click();
    await page.locator('#survey-vm_name-help').getByText(/'vm_name' value web-server-01 is too large/).waitFor();
    assert.equal((await t.get(`/api/v2/service_requests/?catalog_item=${item}`)).body.count, 0);
    await memberPage.shot('portal-request-form');

    await page.locator('#survey-vm_name').fill('web01');
    await page.getByRole('button', { name: 'Submit request' }).click();
    await page.waitForURL(/\/my_requests$/);
    const [request] = (await t.get(`/api/v2/service_requests/?catalog_item=${item}`)).body.results;
    assert.deepEqual(request.extra_vars, { vm_name: 'web01', size: 'large' });
    assert.equal(request.justification, 'New web tier');
    assert.equal(request.requester, member.id);
    await page.getByText(`Request #${request.id} for Provision VM submitted`).waitFor();
    const row = requestRow(page, 'Requests', request.id);
    await row.locator('td[data-label="Status"] [data-status="successful"]').waitFor({ timeout: RUN_TIMEOUT });
    await memberPage.shot('portal-my-requests');
    const run = (await t.get(`/api/v2/service_requests/${request.id}/`)).body.unified_job;
    await row.getByRole('link', { name: new RegExp(`^${run} - `) }).click();
    await page.waitForURL(new RegExp(`/jobs/${run}$`));
    assert.deepEqual(memberPage.errors, []);
  });

  it('an approval item waits; the approver approves one and rejects another with a reason the requester reads', async () => {
    const { page } = memberPage;
    await memberPage.open(`/catalog/${approvalItem.id}`);
    await page.getByText('Requires approval').waitFor();
    await page.locator('#survey-vm_name').fill('db1');
    await page.getByRole('button', { name: 'Submit request' }).click();
    await page.waitForURL(/\/my_requests$/);
    await page.getByText('It waits for an approver.').waitFor();
    const [waiting] = (await t.get(`/api/v2/service_requests/?catalog_item=${approvalItem.id}`)).body.results;
    assert.equal(waiting.status, 'pending_approval');
    assert.equal(waiting.unified_job, null);
    await requestRow(page, 'Requests', waiting.id).locator('[data-status="pending_approval"]').waitFor();
    const refused = await t.post(`/api/v2/service_catalog_items/${approvalItem.id}/submit/`, { extra_vars: { vm_name: 'db2' }, justification: 'Reporting' }, { as: member });
    assert.equal(refused.status, 201, refused.text);

    const a = await consolePage(t, approver, '/approvals');
    try {
      await navLink(a.page, 'Approvals').waitFor();
      const inbox = (id: number) => requestRow(a.page, 'Approvals', id);
      await inbox(refused.body.id).getByText('Reporting').waitFor();
      await a.shot('portal-approvals');
      await inbox(waiting.id).getByRole('button', { name: `Approve request #${waiting.id}` }).click();
      await inbox(waiting.id).waitFor({ state: 'detached' });
      await inbox(refused.body.id).getByRole('button', { name: `Reject request #${refused.body.id}` }).click();
      const dialog = a.page.getByRole('dialog', { name: `Reject request #${refused.body.id}` });
      await dialog.locator('#reject-reason').fill('Not this quarter');
      await dialog.getByRole('button', { name: 'Reject', exact: true }).click();
      await inbox(refused.body.id).waitFor({ state: 'detached' });
      assert.deepEqual(a.errors, []);
    } finally {
      await a.close();
    }
    const rejected = (await t.get(`/api/v2/service_requests/${refused.body.id}/`)).body;
    assert.equal(rejected.status, 'rejected');
    assert.equal(rejected.reason, 'Not this quarter');
    assert.equal(rejected.decided_by, approver.id);
    assert.equal(rejected.unified_job, null);

    await memberPage.open('/my_requests');
    await requestRow(page, 'Requests', refused.body.id).getByText('Rejected: Not this quarter').waitFor();
    await requestRow(page, 'Requests', waiting.id).locator('td[data-label="Status"] [data-status="successful"]').waitFor({ timeout: RUN_TIMEOUT });
    await requestRow(page, 'Requests', refused.body.id).getByRole('link', { name: `#${refused.body.id}` }).click();
    const rejection = page.locator('[aria-label="Rejection"]');
    await rejection.getByText('Not this quarter').waitFor();
    await rejection.getByText('Rejected by portal-approver').waitFor();
    await memberPage.shot('portal-rejected-request');
    assert.deepEqual(memberPage.errors, []);
  });

  it("a workflow item's form has a section for each node's survey, whose refusals land under the node's question", async () => {
    const { page } = memberPage;
    await memberPage.open(`/catalog/${workflowItem.id}`);
    await page.getByRole('heading', { name: 'Step: build' }).waitFor();
    await page.locator('#survey-ticket').fill('T-1');
    await page.getByRole('button', { name: 'Submit request' }).click();
    await page.locator('#node-build-disk_gb-help').getByText(/'disk_gb' value missing/).waitFor();
    assert.equal((await t.get(`/api/v2/service_requests/?catalog_item=${workflowItem.id}`)).body.count, 0);
    await memberPage.shot('portal-workflow-form');
    await page.locator('#node-build-disk_gb').fill('40');
    await page.getByRole('button', { name: 'Submit request' }).click();
    await page.waitForURL(/\/my_requests$/);
    const [request] = (await t.get(`/api/v2/service_requests/?catalog_item=${workflowItem.id}`)).body.results;
    assert.deepEqual(request.extra_vars, { ticket: 'T-1' });
    assert.deepEqual(request.node_survey_data, { build: { disk_gb: 40 } });
    await requestRow(page, 'Requests', request.id).getByRole('link', { name: 'Build pipeline', exact: true }).waitFor();
    assert.deepEqual(memberPage.errors, []);
  });

  it("another organization's admin sees no card and cannot open the item's form", async () => {
    const c = await consolePage(t, otherAdmin, '/catalog');
    try {
      await c.page.getByText('The catalog is empty').waitFor();
      assert.equal(await c.page.locator('[data-item]').count(), 0);
      await c.open(`/catalog/${item}`);
      await c.page.getByText('Not allowed').waitFor();
      assert.equal(await c.page.getByRole('button', { name: 'Submit request' }).count(), 0);
      await c.open('/my_requests');
      await c.page.getByText('No requests yet').waitFor();
    } finally {
      await c.close();
    }
    assert.equal((await t.get(`/api/v2/service_requests/?catalog_item=${item}`)).body.count, 1);
  });
});
