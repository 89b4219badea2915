// The web console: 1) the production bundle (initial JS gzipped against the 300 KB goal, and the
// chunks loaded per route); 2) in headless Chromium against a test service, the output page of a
// job of BENCH_LINES (100,000) output lines inserted directly: time from navigation to the first
// screen of output, time to scroll to the end and show the last line, and the tab's JS heap. The
// baseline of the same run is the download of the job's whole stdout as text.
//
//   npm run build && npm run bench:ui            PGlite, or PostgreSQL when POSTGRES_HOST is set
//
// BENCH_RUNS (3) page loads are measured, each in a fresh browser context; BENCH_TRACE=1 prints
// when each request of a page load started (ms after navigation) and how long it took.
import http from 'node:http';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { performance } from 'node:perf_hooks';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import type { TestApp } from '../test/helpers/app.ts';
import { ADMIN, basicAuth } from '../test/helpers/app.ts';
import { CONSOLE_DIST } from '../src/server/console.ts';
import { appOn } from './lib/app.ts';
import { databases, intEnv } from './lib/options.ts';
import { mean, ms, table } from './lib/stats.ts';

const LINES = intEnv('BENCH_LINES', 100_000);
const RUNS = intEnv('BENCH_RUNS', 3);
const HOSTS = 10;
const TASKS_PER_PLAY = 500;
const BATCH = 10_000;
const INITIAL_JS_GOAL_KB = 300;
const FIRST_SCREEN_GOAL_MS = 1_000;
const SCROLL_END_GOAL_MS = 1_000;
const LIST_GOAL_MS = 1_000;
const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

const kb = (bytes: number) => (bytes / 1024).toFixed(1);

/** The JS index.html loads at once (its module script and modulepreloads) against the other chunks. */
function bundleReport() {
  const assets = path.join(CONSOLE_DIST, 'assets');
  const html = readFileSync(path.join(CONSOLE_DIST, 'index.html'), 'utf8');
  const initial = new Set([...html.matchAll(/(?:src|href)="\/assets\/([^"]+\.js)"/g)].map((m) => m[1]));
  const sizes = readdirSync(assets)
    .filter((f) => f.endsWith('.js'))
    .map((file) => {
      const bytes = readFileSync(path.join(assets, file));
      return { file, raw: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length };
    });
  const first = sizes.filter((s) => initial.has(s.file));
  const rest = sizes.filter((s) => !initial.has(s.file)).sort((a, b) => b.gzip - a.gzip);
  const initialGzip = first.reduce((n, s) => n + s.gzip, 0);
  console.log('\nProduction bundle (ui/dist)');
  console.log(table(['', 'files', 'raw KB', 'gzip KB', 'goal'], [
    ['initial JS (index.html)', String(first.length), kb(first.reduce((n, s) => n + s.raw, 0)), kb(initialGzip), `≤ ${INITIAL_JS_GOAL_KB} KB gzip ${initialGzip <= INITIAL_JS_GOAL_KB * 1024 ? 'met' : 'MISSED'}`],
    ['lazy chunks (routes, pages)', String(rest.length), kb(rest.reduce((n, s) => n + s.raw, 0)), kb(rest.reduce((n, s) => n + s.gzip, 0)), ''],
  ]));
  console.log('\nLargest lazy chunks (gzip KB): ' + rest.slice(0, 8).map((s) => `${s.file.replace(/-[\w-]{8}\.js$/, '')} ${kb(s.gzip)}`).join(', '));
  const output = rest.filter((s) => /^(RunPage|RunOutput|DetailPage)-/.test(s.file));
  console.log(`Job output route (DetailPage + RunPage + RunOutput and what they share): ${output.map((s) => `${s.file.replace(/-[\w-]{8}\.js$/, '')} ${kb(s.gzip)}`).join(', ')}`);
}

/** A finished job of LINES one-line events shaped as a playbook's: plays of tasks, one event per host per task. */
async function bigJob(t: TestApp): Promise<number> {
  const org = (await t.get('/api/v2/organizations/Default/')).body.id;
  const inventory = (await t.post('/api/v2/inventories/', { name: 'Bench', organization: org })).body.id;
  const [job] = await t.db.query<{ id: number }>(
    `INSERT INTO unified_jobs (kind, name, status, inventory_id, organization_id, job_type, playbook, event_processing_finished, started, finished, elapsed, launch_type)
     VALUES ('job', 'Big output', 'successful', $1, $2, 'run', 'site.yml', true, now() - interval '1 hour', now(), 3600, 'manual') RETURNING id`,
    [inventory, org],
  );
  const columns = { counter: [] as number[], uuid: [] as string[], parent: [] as string[], event: [] as string[], hostName: [] as string[], stdout: [] as string[] };
  const flush = async () => {
    if (!columns.counter.length) return;
    await t.db.query(
      `INSERT INTO unified_job_events (unified_job_id, counter, uuid, parent_uuid, event, host_name, stdout, start_line, end_line, task, play)
       SELECT $1, c, u, p, e, hn, s, c - 1, c, '', '' FROM unnest($2::int[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[]) AS x(c, u, p, e, hn, s)`,
      [job.id, columns.counter, columns.uuid, columns.parent, columns.event, columns.hostName, columns.stdout],
    );
    for (const list of Object.values(columns)) list.length = 0;
  };
  const add = (counter: number, event: string, parent: string, host: number | null, stdout: string) => {
    const uuid = `e-${counter}`;
    columns.counter.push(counter);
    columns.uuid.push(uuid);
    columns.parent.push(parent);
    columns.event.push(event);
    columns.hostName.push(host === null ? '' : `host${host}`);
    columns.stdout.push(stdout);
    return uuid;
  };
  const root = add(1, 'playbook_on_start', '', null, '');
  let play = '';
  let task = '';
  let tasks = 0;
  let inTask = HOSTS;
  for (let counter = 2; counter <= LINES; counter++) {
    if (counter === LINES) add(counter, 'playbook_on_stats', root, null, 'PLAY RECAP *********');
    else if (!play || (inTask === HOSTS && tasks === TASKS_PER_PLAY)) {
      play = add(counter, 'playbook_on_play_start', root, null, `PLAY [play ${counter}] *********`);
      tasks = 0;
      inTask = HOSTS;
    } else if (inTask === HOSTS) {
      task = add(counter, 'playbook_on_task_start', play, null, `TASK [task ${counter}] *********`);
      tasks++;
      inTask = 0;
    } else {
      add(counter, 'runner_on_ok', task, inTask, `\u001b[0;32mok: [host${inTask}] => {"changed": false, "msg": "line ${counter}"}\u001b[0m`);
      inTask++;
    }
    if (columns.counter.length >= BATCH) await flush();
  }
  await flush();
  await t.db.query('VACUUM ANALYZE unified_job_events');
  return job.id;
}

/** Downloads the job's stdout as text: the baseline. */
function download(port: number, url: string): Promise<{ ms: number; bytes: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path: url, headers: { authorization: basicAuth(ADMIN) } }, (res) => {
        let bytes = 0;
        res.on('data', (chunk: Buffer) => (bytes += chunk.length));
        res.once('end', () => resolve({ ms: performance.now() - started, bytes }));
      })
      .once('error', reject);
  });
}

/** Milliseconds from the start of the page's navigation until `selector` is in the page (polled each frame). */
async function shown(page: Page, selector: string): Promise<number> {
  const found = await page.waitForFunction(`document.querySelector(${JSON.stringify(selector)}) ? performance.now() : 0`, null, { polling: 'raf' });
  return (await found.jsonValue()) as number;
}

/** When the first screen of output is drawn: line 2 holds its text. performance.now() counts from the navigation's start. */
async function firstScreen(page: Page): Promise<number> {
  const drawn = await page.waitForFunction(`document.querySelector('.drover-output-line[data-line="1"] .drover-output-text')?.textContent?.includes('PLAY') ? performance.now() : 0`, null, { polling: 'raf' });
  return (await drawn.jsonValue()) as number;
}

async function loggedIn(browser: Browser, base: string): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 }, baseURL: base, bypassCSP: true });
  const page = await context.newPage();
  page.setDefaultTimeout(60_000);
  await page.goto(`${base}/login?next=/`);
  await page.getByLabel('Username').fill(ADMIN.username);
  await page.getByLabel('Password').fill(ADMIN.password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.waitForURL((url) => !url.pathname.startsWith('/login'));
  return { context, page };
}

/**
 * The first visit of the job's output on a cold cache: a new browser context holding only the
 * session cookie (nothing of the console loaded or cached), straight to /jobs/<id>.
 */
async function coldRuns(browser: Browser, base: string, jobId: number): Promise<number[]> {
  const { context: login } = await loggedIn(browser, base);
  const storageState = await login.storageState();
  await login.close();
  const results: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 }, baseURL: base, bypassCSP: true, storageState });
    const page = await context.newPage();
    page.setDefaultTimeout(60_000);
    const trace: string[] = [];
    const navigated = Date.now();
    if (process.env.BENCH_TRACE) page.on('requestfinished', (r) => trace.push(`${(r.timing().startTime - navigated).toFixed(0).padStart(6)} +${r.timing().responseEnd.toFixed(0).padStart(5)} ms  ${r.url().replace(base, '')}`));
    await page.goto(`${base}/jobs/${jobId}`);
    results.push(await firstScreen(page));
    if (trace.length) console.log(`cold visit ${run + 1}:\n${trace.join('\n')}`);
    await context.close();
  }
  return results;
}

/** Console pages an operator opens all day: every list of the navigation, and Settings › Jobs. */
const LIST_PAGES = ['/unified_jobs', '/schedules', '/activity_stream', '/workflow_approvals', '/job_templates', '/workflow_job_templates', '/credentials', '/projects', '/inventories', '/hosts', '/drift_detections', '/event_rules', '/policies', '/organizations', '/users', '/teams', '/credential_types', '/notification_templates', '/system_job_templates', '/instance_groups', '/instances', '/execution_environments'];
/** A list is usable once its table or its empty state is drawn. */
const LIST_READY = 'main table[aria-label], main .pf-v6-c-empty-state';
const SETTINGS_READY = 'form[aria-label="Settings"] input, form[aria-label="Settings"] textarea, form[aria-label="Settings"] select';

/** Each page opened by a full navigation in a logged-in context (the console's code cached after the first). */
async function pageLoads(browser: Browser, base: string): Promise<{ path: string; ms: number }[]> {
  const { context, page } = await loggedIn(browser, base);
  const results: { path: string; ms: number }[] = [];
  try {
    for (const pathname of [...LIST_PAGES, '/settings/jobs']) {
      await page.goto(`${base}${pathname}`);
      results.push({ path: pathname, ms: await shown(page, pathname.startsWith('/settings') ? SETTINGS_READY : LIST_READY) });
    }
  } finally {
    await context.close();
  }
  return results;
}

async function pageRuns(browser: Browser, base: string, jobId: number) {
  const results: { first: number; end: number; heap: number }[] = [];
  {
    for (let run = 0; run < RUNS; run++) {
      const { context, page } = await loggedIn(browser, base);
      const trace: string[] = [];
      if (process.env.BENCH_TRACE) page.on('requestfinished', (r) => trace.push(`${(r.timing().startTime - navigated).toFixed(0).padStart(6)} +${r.timing().responseEnd.toFixed(0).padStart(5)} ms  ${r.url().replace(base, '')}`));
      const navigated = Date.now();
      await page.goto(`${base}/jobs/${jobId}`);
      const first = await firstScreen(page);
      // A string, not a function: the runner's transpiler would add helpers the page does not have.
      const end = (await page.evaluate(`new Promise((resolve) => {
        const scroller = document.querySelector('.drover-output');
        const started = performance.now();
        scroller.scrollTop = scroller.scrollHeight;
        const check = () => {
          const line = document.querySelector('.drover-output-line[data-line="${LINES - 1}"] .drover-output-text');
          if (line && !line.querySelector('.drover-output-missing') && line.textContent.includes('PLAY RECAP')) resolve(performance.now() - started);
          else requestAnimationFrame(check);
        };
        check();
      })`)) as number;
      const cdp = await context.newCDPSession(page);
      await cdp.send('Performance.enable');
      const { metrics } = await cdp.send('Performance.getMetrics');
      const heap = metrics.find((m) => m.name === 'JSHeapUsedSize')?.value ?? NaN;
      results.push({ first, end, heap });
      if (trace.length) console.log(trace.join('\n'));
      await context.close();
    }
  }
  return results;
}

async function main() {
  bundleReport();
  for (const choice of databases()) {
    const t = await appOn(choice);
    try {
      const started = performance.now();
      const jobId = await bigJob(t);
      console.log(`\n${choice}: a job of ${LINES.toLocaleString()} output lines inserted in ${((performance.now() - started) / 1000).toFixed(1)} s`);
      await t.app.listen({ host: '127.0.0.1', port: 0 });
      const port = (t.app.server.address() as { port: number }).port;
      const base = `http://127.0.0.1:${port}`;
      const stdout = await download(port, `/api/v2/jobs/${jobId}/stdout/?format=txt_download`);
      const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
      let runs: Awaited<ReturnType<typeof pageRuns>>;
      let colds: number[];
      let loads: Awaited<ReturnType<typeof pageLoads>>;
      try {
        colds = await coldRuns(browser, base, jobId);
        runs = await pageRuns(browser, base, jobId);
        loads = await pageLoads(browser, base);
      } finally {
        await browser.close();
      }
      const firsts = runs.map((r) => r.first);
      const ends = runs.map((r) => r.end);
      const heaps = runs.map((r) => r.heap / 1024 / 1024);
      console.log(table(['measure', 'mean', 'worst', 'goal'], [
        ['cold cache: first visit → first screen of output (ms)', ms(mean(colds)), ms(Math.max(...colds)), `≤ ${FIRST_SCREEN_GOAL_MS} ${Math.max(...colds) <= FIRST_SCREEN_GOAL_MS ? 'met' : 'MISSED'}`],
        ['navigation → first screen of output (ms)', ms(mean(firsts)), ms(Math.max(...firsts)), `≤ ${FIRST_SCREEN_GOAL_MS} ${Math.max(...firsts) <= FIRST_SCREEN_GOAL_MS ? 'met' : 'MISSED'}`],
        ['scroll to the end, last line shown (ms)', ms(mean(ends)), ms(Math.max(...ends)), `≤ ${SCROLL_END_GOAL_MS} ${Math.max(...ends) <= SCROLL_END_GOAL_MS ? 'met' : 'MISSED'}`],
        ['JS heap of the tab after both (MB)', mean(heaps).toFixed(1), Math.max(...heaps).toFixed(1), ''],
        [`baseline: GET stdout/?format=txt_download (ms, ${kb(stdout.bytes)} KB)`, ms(stdout.ms), '', ''],
      ]));
      const slow = loads.filter((l) => l.ms > LIST_GOAL_MS);
      console.log(`\nPages usable (table, empty state or settings form drawn), ms after navigation, goal ≤ ${LIST_GOAL_MS}: ${slow.length ? `${slow.length} MISSED` : 'met'}`);
      console.log(table(['page', 'ms'], loads.map((l) => [l.path, ms(l.ms)])));
    } finally {
      await t.close();
    }
  }
}

await main();
