import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { createTestApp, ADMIN, type TestApp } from '../helpers/app.ts';
import { consoleAt, consolePage, serve, type ConsolePage } from '../helpers/browser.ts';
import { HELLO_PLAYBOOK, newInventory, newJobTemplate, newOrg, newProject } from '../helpers/factories.ts';
import { eventually } from '../helpers/jobs.ts';
import { GATES } from '../../src/composition/root.ts';
import type { Gate } from '../../src/runs/gates.ts';

const REFUSED_TEMPLATE = 'Over quota';
const REFUSAL = { detail: 'Tenant quota exceeded.', reasons: ['max_concurrent_jobs: 3 of 3 runs already going on.', 'max_daily_launches: 50 of 50 launches today.'] };

/** Refuses launches of one template as the tenant quota gate refuses (docs/tenants.md): what the console shows is the 429's body. */
const quotaStandIn: Gate = {
  name: 'quota stand-in',
  check: async (_tx, launch) =>
    launch.template?.name === REFUSED_TEMPLATE ? { decision: 'deny', status: 429, message: REFUSAL.detail, body: REFUSAL } : { decision: 'allow' },
};

interface Provisioned {
  id: number;
  organization: number;
  admin: { username: string; password: string };
}

/** A tenant provisioned through the API, with its admin's credentials. */
async function provision(t: TestApp, name: string, fields: Record<string, unknown> = {}): Promise<Provisioned> {
  const username = `${name.toLowerCase().replace(/[^a-z0-9]+/g, '-').slice(0, 30)}-admin`;
  const password = 'Tenant-admin-pw-1';
  const res = await t.post('/api/v2/tenants/', { name, admin_username: username, admin_email: `${username}@example.com`, admin_password: password, ...fields });
  assert.equal(res.status, 201, res.text);
  return { id: res.body.id, organization: res.body.organization, admin: { username, password } };
}

/** A job template of the organization on a manual project: its runs stay pending, as no dispatcher runs here. */
async function templateIn(t: TestApp, org: number, name: string) {
  const dir = `${t.env.projectsRoot}/tenant${org}`;
  await mkdir(dir, { recursive: true });
  await writeFile(`${dir}/hello.yml`, HELLO_PLAYBOOK);
  const project = await newProject(t, org, { name: `${name} project`, local_path: `tenant${org}` });
  const inventory = await newInventory(t, org, { name: `${name} inventory`, local: false });
  return newJobTemplate(t, { name, project, inventory, playbook: 'hello.yml' });
}

const helpText = (c: ConsolePage, id: string) => c.page.locator(`#${id}-help`);

describe('console: tenants', () => {
  let t: TestApp;
  let admin: ConsolePage;
  let port: string;

  before(async () => {
    t = await createTestApp({}, { dispatcher: false, gates: [quotaStandIn, ...GATES] });
    port = new URL(await serve(t)).port;
    admin = await consolePage(t, ADMIN, '/');
  });
  after(async () => {
    await admin?.close();
    await t?.close();
  });

  it('provisions a tenant through the form: every bad field named under it and nothing made, then the generated password once', async () => {
    const { page } = admin;
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Tenants', exact: true }).click();
    await page.waitForURL(/\/tenants$/);
    await page.getByRole('link', { name: 'Add' }).first().click();
    await page.waitForURL(/\/tenants\/add$/);
    await page.locator('#tenant-name').fill('Acme');
    await page.getByLabel('Admin username').fill('acme-admin');
    await page.getByLabel('Admin email').fill('not-an-email');
    await page.getByLabel('Hosts', { exact: true }).fill('lots');
    await page.getByLabel('Primary colour', { exact: true }).fill('red');
    await page.getByLabel('Custom domain').fill('http://acme.localhost/');
    await page.getByRole('button', { name: 'Provision' }).click();
    await helpText(admin, 'tenant-admin-email').filter({ hasText: /email/i }).waitFor();
    assert.match(await helpText(admin, 'tenant-quota-max_hosts').innerText(), /whole number/);
    assert.match(await helpText(admin, 'tenant-branding-primary_color').innerText(), /#RRGGBB/);
    assert.match(await helpText(admin, 'tenant-branding-custom_domain').innerText(), /host name/);
    await admin.shot('tenant-provision-errors');
    assert.equal((await t.get('/api/v2/tenants/')).body.count, 0);
    assert.equal((await t.get('/api/v2/organizations/?name=Acme')).body.count, 0);
    assert.equal((await t.get('/api/v2/users/?username=acme-admin')).body.count, 0);

    await page.getByLabel('Admin email').fill('admin@acme.example');
    await page.getByLabel('Hosts', { exact: true }).fill('10');
    await page.getByLabel('Primary colour', { exact: true }).fill('#0066cc');
    await page.getByLabel('Secondary colour', { exact: true }).fill('#223344');
    await page.getByLabel('Custom domain').fill('acme.localhost');
    await page.getByLabel('Logo URL').fill('https://cdn.acme.example/logo.png');
    const preview = page.getByRole('figure', { name: 'Branding preview' });
    assert.equal(await preview.getByTestId('preview-masthead').evaluate((el) => getComputedStyle(el).backgroundColor), 'rgb(34, 51, 68)');
    assert.equal(await preview.getByTestId('preview-masthead').evaluate((el) => getComputedStyle(el).color), 'rgb(255, 255, 255)');
    assert.equal(await preview.getByTestId('preview-button').evaluate((el) => getComputedStyle(el).backgroundColor), 'rgb(0, 102, 204)');
    await page.getByRole('button', { name: 'Provision' }).click();

    const dialog = page.getByRole('dialog', { name: 'Tenant Acme provisioned' });
    const password = await dialog.getByRole('textbox', { name: 'Generated admin password' }).inputValue();
    assert.ok(password.length >= 16, password);
    await admin.shot('tenant-generated-password');
    assert.equal((await t.get('/api/v2/me/', { as: { username: 'acme-admin', password } })).status, 200);
    await dialog.getByRole('button', { name: 'Done' }).click();
    const [tenant] = (await t.get('/api/v2/tenants/')).body.results;
    await page.waitForURL(new RegExp(`/tenants/${tenant.id}$`));
    const details = page.locator('dl[aria-label="Details"]');
    assert.equal(await details.locator('[data-field="organization"] a').getAttribute('href'), `/organizations/${tenant.organization}`);
    assert.equal(await details.locator('[data-field="admin_user"]').innerText(), 'acme-admin');
    assert.equal(await details.locator('[data-field="team"]').innerText(), 'Acme Default Team');
    // Shown once: the tenant's page and the API never show it again.
    assert.doesNotMatch(await page.locator('main').innerText(), new RegExp(password));
    assert.equal((await t.get(`/api/v2/tenants/${tenant.id}/`)).body.admin_password, undefined);
  });

  it('provisions with a password typed instead of generated: no password dialog, the admin logs in with it', async () => {
    const { page } = admin;
    await admin.open('/tenants/add');
    await page.locator('#tenant-name').fill('Typed corp');
    await page.getByLabel('Admin username').fill('typed-admin');
    await page.getByLabel('Admin email').fill('typed@example.com');
    await page.getByLabel('Generate a password').uncheck();
    await page.locator('#tenant-admin-password').fill('Typed-password-1');
    await page.getByRole('button', { name: 'Provision' }).click();
    await page.waitForURL(/\/tenants\/\d+$/);
    assert.equal(await page.getByRole('dialog').count(), 0);
    assert.equal((await t.get('/api/v2/me/', { as: { username: 'typed-admin', password: 'Typed-password-1' } })).status, 200);
  });

  it("shows usage against each quota, Unlimited where there is none, live, and recalculates on demand", async () => {
    const tenant = await provision(t, 'Usage corp', { quota: { max_hosts: 10, max_daily_launches: 0 } });
    const inventory = await newInventory(t, tenant.organization, { name: 'Usage hosts', local: false });
    for (const name of ['u1', 'u2', 'u3']) assert.equal((await t.post(`/api/v2/inventories/${inventory.id}/hosts/`, { name })).status, 201);
    const { page } = admin;
    await admin.open(`/tenants/${tenant.id}`);
    const usage = page.locator('dl[aria-label="Usage against quotas"]');
    const hosts = usage.locator('[data-quota="max_hosts"]');
    await hosts.getByRole('progressbar').waitFor();
    assert.match(await usage.locator('[data-quota="max_concurrent_jobs"]').innerText(), /0 runs · Unlimited/);
    assert.match(await usage.locator('[data-quota="max_daily_launches"]').innerText(), /Unlimited/, '0 is unlimited');
    await page.getByRole('button', { name: 'Recalculate' }).click();
    await hosts.getByText('3 of 10 hosts').first().waitFor();
    // Usage is read again while the page is open: a quota lowered elsewhere shows as reached.
    assert.equal((await t.patch(`/api/v2/tenants/${tenant.id}/`, { quota: { max_hosts: 3 } })).status, 200);
    await hosts.getByText('3 of 3 hosts').first().waitFor();
    await hosts.locator('.pf-m-danger').waitFor();
    await admin.shot('tenant-usage');

    // The list's search finds a tenant by its organization's name (a tenant has no text of its own).
    await provision(t, 'Unrelated corp');
    await admin.open('/tenants');
    const rows = page.locator('main table tbody tr');
    await rows.filter({ hasText: 'Unrelated corp' }).waitFor();
    await page.getByLabel('Search tenants').fill('Usage');
    await page.waitForURL(/organization__search=Usage/);
    await page.waitForFunction(() => {
      const texts = [...document.querySelectorAll('main table tbody tr')].map((row) => row.textContent ?? '');
      return texts.length === 1 && texts[0].includes('Usage corp');
    });
  });

  it('edits quotas and branding with a preview, the API refusal under its field', async () => {
    const tenant = await provision(t, 'Edit corp', { quota: { max_hosts: 5 }, branding: { primary_color: '#112233' } });
    const { page } = admin;
    await admin.open(`/tenants/${tenant.id}`);
    await page.getByRole('button', { name: 'Edit' }).click();
    await page.waitForURL(new RegExp(`/tenants/${tenant.id}/edit$`));
    assert.equal(await page.getByLabel('Name', { exact: true }).inputValue(), 'Edit corp');
    assert.equal(await page.getByLabel('Hosts', { exact: true }).inputValue(), '5');
    await page.getByLabel('Primary colour', { exact: true }).fill('#12345');
    await page.getByRole('button', { name: 'Save' }).click();
    assert.match(await helpText(admin, 'tenant-branding-primary_color').filter({ hasText: /#RRGGBB/ }).innerText(), /#RRGGBB/);
    assert.equal((await t.get(`/api/v2/tenants/${tenant.id}/`)).body.branding.primary_color, '#112233');

    await page.getByLabel('Primary colour', { exact: true }).fill('#AA0000');
    const button = page.getByRole('figure', { name: 'Branding preview' }).getByTestId('preview-button');
    assert.equal(await button.evaluate((el) => getComputedStyle(el).backgroundColor), 'rgb(170, 0, 0)');
    await page.getByLabel('Hosts', { exact: true }).fill('');
    await page.getByLabel('Launches per day').fill('40');
    await admin.shot('tenant-edit');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.waitForURL(new RegExp(`/tenants/${tenant.id}$`));
    const saved = (await t.get(`/api/v2/tenants/${tenant.id}/`)).body;
    assert.equal(saved.branding.primary_color, '#aa0000');
    assert.equal(saved.quota.max_hosts, null);
    assert.equal(saved.quota.max_daily_launches, 40);
    assert.match(await page.locator('[data-quota="max_hosts"]').innerText(), /Unlimited/);
  });

  it('deletes a tenant only once its name is typed, showing the 409 while it has runs going on', async () => {
    const tenant = await provision(t, 'Doomed corp');
    const template = await templateIn(t, tenant.organization, 'Doomed template');
    const launched = await t.post(`/api/v2/job_templates/${template.id}/launch/`, {});
    assert.equal(launched.status, 201, launched.text);
    const { page } = admin;
    await admin.open(`/tenants/${tenant.id}`);
    await page.getByRole('button', { name: 'Delete' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete tenant Doomed corp?' });
    const remove = dialog.getByRole('button', { name: 'Delete' });
    assert.ok(await remove.isDisabled());
    await dialog.getByLabel('Type Doomed corp to confirm').fill('Doomed');
    assert.ok(await remove.isDisabled());
    await dialog.getByLabel('Type Doomed corp to confirm').fill('Doomed corp');
    await remove.click();
    const refusal = dialog.getByRole('alert');
    await refusal.getByText('Tenant not deleted').waitFor();
    const expected = await t.delete(`/api/v2/tenants/${tenant.id}/?confirm=true`);
    assert.equal(expected.status, 409);
    assert.match(await refusal.innerText(), new RegExp(expected.body.detail.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
    await admin.shot('tenant-delete-refused');
    assert.equal((await t.get(`/api/v2/tenants/${tenant.id}/`)).status, 200);

    assert.equal((await t.post(`/api/v2/jobs/${launched.body.job}/cancel/`, {})).status, 202);
    await eventually(async () => (await t.get(`/api/v2/jobs/${launched.body.job}/`)).body.status === 'canceled' || undefined, 20_000, 'the run canceled');
    await remove.click();
    await page.waitForURL(/\/tenants$/);
    assert.equal((await t.get(`/api/v2/tenants/${tenant.id}/`)).status, 404);
    assert.equal((await t.get(`/api/v2/organizations/${tenant.organization}/`)).status, 404);
  });

  it("shows a launch the tenant's quota refuses with the 429's detail and every reason", async () => {
    const org = await newOrg(t, { name: 'Quota launch org' });
    const template = await templateIn(t, org.id, REFUSED_TEMPLATE);
    const { page } = admin;
    await admin.open(`/job_templates/${template.id}`);
    await page.getByRole('button', { name: 'Launch' }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'Quota exceeded' });
    await alert.waitFor();
    assert.match(await alert.innerText(), /Tenant quota exceeded\./);
    assert.deepEqual(await alert.getByRole('list', { name: 'Reasons' }).getByRole('listitem').allInnerTexts(), REFUSAL.reasons);
    assert.match(page.url(), new RegExp(`/job_templates/${template.id}$`), 'no run to go to');
    await admin.shot('launch-quota-refused');
  });

  it("carries a tenant's branding on its custom domain from the first paint, and nothing of it elsewhere", async () => {
    const tenant = await provision(t, 'Brand corp', {
      branding: { custom_domain: 'brand.localhost', primary_color: '#aa0000', secondary_color: '#102030', logo_url: 'https://cdn.brand.example/logo.png' },
    });
    const c = await consoleAt(`http://brand.localhost:${port}`);
    const asked: string[] = [];
    c.page.on('request', (request) => asked.push(new URL(request.url()).pathname));
    try {
      // The page as served, before any script: the title and the data are there.
      const served = (await t.get('/login', { as: null, headers: { host: `brand.localhost:${port}` } })).text;
      assert.match(served, /<title>Brand corp<\/title>/);
      assert.match(served, /id="drover-branding"/);
      await c.open('/login');
      await c.page.getByRole('heading', { name: 'Log in to Brand corp' }).waitFor();
      assert.equal(await c.page.title(), 'Brand corp');
      assert.equal(await c.page.evaluate(() => getComputedStyle(document.documentElement).getPropertyValue('--pf-t--global--color--brand--default').trim()), '#aa0000');
      assert.equal(await c.page.locator('img[src="https://cdn.brand.example/logo.png"]').count(), 1);
      await c.page.getByLabel('Username').fill(tenant.admin.username);
      await c.page.getByLabel('Password').fill(tenant.admin.password);
      // The button eases into its enabled colour: the tenant's primary.
      await c.page.waitForFunction(() => [...document.querySelectorAll('button[type="submit"]')].some((b) => getComputedStyle(b).backgroundColor === 'rgb(170, 0, 0)'));
      await c.shot('tenant-branded-login');
      await c.page.getByRole('button', { name: 'Log in' }).click();
      await c.page.waitForURL((url) => !url.pathname.startsWith('/login'));
      const masthead = c.page.locator('.pf-v6-c-masthead');
      await masthead.getByRole('heading', { name: 'Brand corp' }).waitFor();
      assert.equal(await masthead.evaluate((el) => getComputedStyle(el).backgroundColor), 'rgb(16, 32, 48)');
      assert.equal(await masthead.getByRole('heading', { name: 'Brand corp' }).evaluate((el) => getComputedStyle(el).color), 'rgb(255, 255, 255)');
      assert.equal(await masthead.locator('img[src="https://cdn.brand.example/logo.png"]').count(), 1);
      await c.shot('tenant-branded-dashboard');
      assert.ok(!asked.some((p) => p.startsWith('/api/v2/branding')), 'the branding came with the page');
      assert.deepEqual(c.errors, []);
    } finally {
      await c.close();
    }

    // Another host of the same service: the stock console.
    const stock = await consoleAt(`http://localhost:${port}`);
    try {
      await stock.open('/login');
      await stock.page.getByRole('heading', { name: 'Log in to Drover' }).waitFor();
      assert.equal(await stock.page.title(), 'Drover');
      assert.equal(await stock.page.locator('#drover-branding').count(), 0);
    } finally {
      await stock.close();
    }
  });

  it("keeps a hostile tenant name data on its domain: no markup or script of it runs", async () => {
    const name = `Evil</title></script><script>window.pwned=1</script><img src=x onerror="window.pwned=2">`;
    await provision(t, name, { admin_username: 'evil-admin', branding: { custom_domain: 'evil.localhost' } });
    const c = await consoleAt(`http://evil.localhost:${port}`);
    try {
      await c.open('/login');
      await c.page.getByRole('heading', { name: `Log in to ${name}` }).waitFor();
      assert.equal(await c.page.title(), name);
      assert.equal(await c.page.evaluate(() => (window as unknown as { pwned?: number }).pwned), undefined);
      assert.equal(await c.page.locator('script').count(), 2, 'the console and its data block only');
      assert.equal(await c.page.locator('img[src="x"]').count(), 0);
      assert.deepEqual(c.errors, []);
    } finally {
      await c.close();
    }
  });

  it("offers tenants to superusers only: a tenant's admin sees no Tenants, is refused them, and sees his own quota decisions only", async () => {
    const mine = await provision(t, 'Own corp');
    const other = await provision(t, 'Other corp');
    // Quota decisions are written by the quota gate at launches; two are stored here, one per tenant.
    for (const tenant of [mine, other]) {
      await t.db.query(
        `INSERT INTO tenant_quota_events (tenant_id, organization_id, quota_kind, decision, quota_limit, usage, action, message) VALUES ($1, $2, 'max_hosts', 'deny', 3, 3, 'host', $3)`,
        [tenant.id, tenant.organization, `decision of ${tenant.admin.username}`],
      );
    }
    const c = await consolePage(t, mine.admin, '/');
    try {
      const nav = c.page.getByRole('navigation', { name: 'Main' });
      await nav.getByRole('link', { name: 'Organizations', exact: true }).waitFor();
      await nav.getByRole('link', { name: 'Quota decisions', exact: true }).waitFor();
      assert.equal(await nav.getByRole('link', { name: 'Tenants', exact: true }).count(), 0);
      await c.open('/tenant_quota_events');
      await c.page.getByText(`decision of ${mine.admin.username}`).waitFor();
      assert.equal(await c.page.getByText(`decision of ${other.admin.username}`).count(), 0);
      for (const path of ['/tenants', `/tenants/${other.id}`, `/tenants/${mine.id}/edit`]) {
        await c.open(path);
        await c.page.getByText('Not allowed').first().waitFor();
      }
      assert.equal((await t.get(`/api/v2/tenants/${other.id}/`, { as: mine.admin })).status, 403);
      assert.equal((await t.patch(`/api/v2/tenants/${mine.id}/`, { quota: { max_hosts: null } }, { as: mine.admin })).status, 403);
      assert.equal((await t.delete(`/api/v2/tenants/${other.id}/?confirm=true`, { as: mine.admin })).status, 403);
      assert.equal((await t.get(`/api/v2/tenants/${other.id}/`)).status, 200);
    } finally {
      await c.close();
    }
  });
});
