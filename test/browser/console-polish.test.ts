import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { consolePage } from '../helpers/browser.ts';
import { grant, newInventory, newOrg, newProject, newUser, newWorkflow } from '../helpers/factories.ts';

/** WCAG's relative luminance of an `rgb(r, g, b)` colour. */
function luminance(color: string): number {
  const [r, g, b] = (color.match(/[\d.]+/g) ?? []).slice(0, 3).map(Number).map((v) => {
    const c = v / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

const contrast = (a: string, b: string) => {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
};

/** Each highlighted kind of token in `container` with its colour, and the background it is drawn on. */
async function tokenColours(page: Page, container: string): Promise<{ background: string; tokens: Record<string, string> }> {
  return page.locator(container).first().evaluate((root) => {
    let background = 'rgb(255, 255, 255)';
    for (let el: Element | null = root; el; el = el.parentElement) {
      const bg = getComputedStyle(el).backgroundColor;
      if (bg && bg !== 'transparent' && !bg.startsWith('rgba(0, 0, 0, 0)')) {
        background = bg;
        break;
      }
    }
    const tokens: Record<string, string> = {};
    for (const span of root.querySelectorAll('span[class^="drover-rego-"]')) tokens[span.className] = getComputedStyle(span).color;
    tokens.text = getComputedStyle(root).color;
    return { background, tokens };
  });
}

describe('console: dashboard, settings, activity names, labels and editor colours', () => {
  let t: TestApp;
  let org: any;

  before(async () => {
    t = await createTestApp();
    org = await newOrg(t, { name: 'Polish org' });
    await newWorkflow(t, org, { name: 'Polish workflow' });
  });
  after(() => t.close());

  it('lists recent templates and draws the chart with its count and time axes, warning about nothing on load', async () => {
    const c = await consolePage(t);
    const warnings: string[] = [];
    c.page.on('console', (m) => {
      if (m.type() === 'warning' || m.type() === 'error') warnings.push(m.text());
    });
    try {
      await c.page.reload();
      const recent = c.page.getByRole('list', { name: 'Recent templates' });
      await recent.getByRole('link', { name: 'Polish workflow' }).waitFor();
      assert.equal(await c.page.getByText('Something went wrong').count(), 0);
      const chart = c.page.getByRole('img', { name: /Job runs: \d+ finished/ });
      await chart.locator('[data-axis="count"]').getByText('Runs').waitFor();
      assert.equal(await chart.locator('[data-axis="count"] text').first().textContent(), '0');
      await chart.locator('[data-axis="time"]').getByText('Date').waitFor();
      await c.page.getByLabel('Period', { exact: true }).selectOption('day');
      await chart.locator('[data-axis="time"]').getByText('Time').waitFor();
      await c.shot('dashboard-chart-axes');
      assert.deepEqual(warnings.filter((w) => !/Failed to load resource/.test(w)), []);
      assert.deepEqual(c.errors, []);
    } finally {
      await c.close();
    }
  });

  it("shows each aliased setting once, under AWX's name, and hides what does nothing here", async () => {
    const c = await consolePage(t, undefined, '/settings/jobs');
    try {
      const form = c.page.getByRole('form', { name: 'Settings' });
      await form.locator('#field-AWX_TASK_ENV').waitFor();
      assert.equal(await form.locator('#field-SVC_TASK_ENV').count(), 0);
      assert.equal(await form.getByText('Extra Environment Variables', { exact: true }).count(), 1);
      await form.getByText("AWX's name of SVC_TASK_ENV").waitFor();
      for (const hidden of ['AWX_RUNNER_KEEPALIVE_SECONDS', 'AWX_MOUNT_ISOLATED_PATHS_ON_K8S', 'DEFAULT_CONTAINER_RUN_OPTIONS']) {
        assert.equal(await form.locator(`#field-${hidden}`).count(), 0, `${hidden} is hidden`);
      }
      await form.locator('#field-DEFAULT_JOB_TIMEOUT').waitFor();
      await c.shot('settings-jobs-awx-names');
      assert.deepEqual(c.errors, []);
    } finally {
      await c.close();
    }
  });

  it('names the objects of the activity stream and links them', async () => {
    const inventory = await newInventory(t, org, { name: 'Streamed inventory' });
    const grantee = await newUser(t, { username: 'streamed-user' });
    await grant(t, grantee, inventory, 'use_role');
    const c = await consolePage(t, undefined, '/activity_stream?operation=associate');
    try {
      const row = c.page.getByRole('row').filter({ hasText: 'streamed-user' }).filter({ hasText: 'Use of inventory' }).first();
      await row.getByRole('link', { name: 'user streamed-user' }).waitFor();
      assert.equal(await row.getByRole('link', { name: 'Streamed inventory' }).getAttribute('href'), `/inventories/${inventory.id}`);
      assert.equal(await row.getByText(/#\d+/).count(), 0, 'no bare ids');
      await c.shot('activity-stream-names');
      assert.deepEqual(c.errors, []);
    } finally {
      await c.close();
    }
  });

  it("shows choices and fields by their friendly names: Git, Clean, the run's type", async () => {
    const project = await newProject(t, org, { name: 'Labelled project' });
    const c = await consolePage(t, undefined, '/projects');
    try {
      const row = c.page.getByRole('row').filter({ hasText: 'Labelled project' });
      await row.locator('td[data-label="Type"]').getByText('Git', { exact: true }).waitFor();
      await c.open(`/projects/${project.id}`);
      await c.page.getByRole('term').getByText('Clean', { exact: true }).waitFor();
      assert.equal(await c.page.getByText('Scm clean').count(), 0);
      await c.open('/unified_jobs');
      const update = c.page.getByRole('row').filter({ hasText: 'Labelled project' }).first();
      assert.notEqual(await update.locator('td[data-label="Type"]').innerText(), 'project_update');
      await c.shot('friendly-labels');
      assert.deepEqual(c.errors, []);
    } finally {
      await c.close();
    }
  });

  for (const scheme of ['light', 'dark'] as const) {
    it(`highlights Rego readably in ${scheme} mode (WCAG AA contrast of every token colour)`, async () => {
      const c = await consolePage(t, undefined, '/policies/add');
      try {
        await c.page.emulateMedia({ colorScheme: scheme });
        if (scheme === 'dark') await c.page.waitForFunction(() => document.documentElement.classList.contains('pf-v6-theme-dark'));
        await c.page.locator('#field-rego_module').fill('package drover.example\n\n# a comment\nimport rego.v1\ndeny contains msg if {\n  count(input.hosts) > 10\n  msg := "too many hosts"\n}\n');
        await c.page.locator('.drover-rego-layer .drover-rego-comment').first().waitFor();
        const { background, tokens } = await tokenColours(c.page, '.drover-rego-layer');
        for (const kind of ['drover-rego-keyword', 'drover-rego-string', 'drover-rego-number', 'drover-rego-comment', 'text']) assert.ok(tokens[kind], `${kind} is drawn`);
        for (const [kind, colour] of Object.entries(tokens)) {
          const ratio = contrast(colour, background);
          assert.ok(ratio >= 4.5, `${kind} ${colour} on ${background}: ${ratio.toFixed(2)}:1`);
        }
        await c.shot(`rego-editor-${scheme}`);

        await c.open('/inventories/add');
        const variables = c.page.locator('#field-variables');
        await variables.fill('---\nhttp_port: 80\n');
        const drawn = await variables.evaluate((el) => {
          let background = 'rgb(255, 255, 255)';
          for (let at: Element | null = el; at; at = at.parentElement) {
            const bg = getComputedStyle(at).backgroundColor;
            if (bg && !bg.startsWith('rgba(0, 0, 0, 0)') && bg !== 'transparent') {
              background = bg;
              break;
            }
          }
          return { colour: getComputedStyle(el).color, background };
        });
        const ratio = contrast(drawn.colour, drawn.background);
        assert.ok(ratio >= 4.5, `variables ${drawn.colour} on ${drawn.background}: ${ratio.toFixed(2)}:1`);
      } finally {
        await c.close();
      }
    });
  }
});
