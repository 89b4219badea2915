/**
 * Browser tests of the web console: Debian's Chromium driven by playwright-core against a real
 * service (the test app listening on loopback), with screenshots written to test-artifacts/.
 */
import { after } from 'node:test';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import type { TestApp } from './app.ts';
import { ADMIN } from './app.ts';
import { CONSOLE_DIST } from '../../src/server/console.ts';

export const CHROMIUM = '/usr/bin/chromium';
export const ARTIFACTS = path.resolve(import.meta.dirname, '../../test-artifacts');

// Without the background-networking flags Chromium reaches for Google's hosts, which this network refuses.
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

let shared: Promise<Browser> | undefined;

/** One headless Chromium per test file, closed when the file ends. */
export function browser(): Promise<Browser> {
  if (!existsSync(path.join(CONSOLE_DIST, 'index.html'))) throw new Error('The web console is not built: run npm run build (setup does).');
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: run npm run setup (it installs Debian's chromium).`);
  shared ??= chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
  return shared;
}

after(async () => {
  if (shared) await (await shared).close();
});

/** The test app on a loopback port; answers its base URL (http://127.0.0.1:<port>). */
export async function serve(t: TestApp): Promise<string> {
  if (!t.app.server.listening) await t.app.listen({ host: '127.0.0.1', port: 0 });
  const address = t.app.server.address() as { port: number };
  return `http://127.0.0.1:${address.port}`;
}

export interface ConsolePage {
  page: Page;
  context: BrowserContext;
  base: string;
  /** Goes to a console path (/inventories, /jobs/3...). */
  open(pathname: string): Promise<void>;
  /** Writes test-artifacts/screenshots/<name>.png. */
  shot(name: string): Promise<void>;
  /** Problems the page reported: uncaught errors and console errors other than failed requests. */
  errors: string[];
  close(): Promise<void>;
}

/**
 * A new browser context logged in through the console's login page as `who` (the admin by
 * default), on `start` once logged in.
 */
export async function consolePage(t: TestApp, who: { username: string; password: string } = ADMIN, start = '/'): Promise<ConsolePage> {
  const c = await consoleAt(await serve(t));
  await c.page.goto(`${c.base}/login?next=${encodeURIComponent(start)}`);
  await c.page.getByLabel('Username').fill(who.username);
  await c.page.getByLabel('Password').fill(who.password);
  await c.page.getByRole('button', { name: 'Log in' }).click();
  await c.page.waitForURL((url) => !url.pathname.startsWith('/login'));
  return c;
}

/** A new browser context on the console at `base`, signed in to nothing, its page's problems watched. */
export async function consoleAt(base: string): Promise<ConsolePage> {
  const context = await (await browser()).newContext({ viewport: { width: 1280, height: 860 }, baseURL: base });
  const page = await context.newPage();
  page.setDefaultTimeout(20_000);
  const errors: string[] = [];
  page.on('pageerror', (err) => errors.push(err.message));
  page.on('console', (message) => {
    if (message.type() === 'error' && !/Failed to load resource/.test(message.text())) errors.push(message.text());
  });
  return {
    page,
    context,
    base,
    errors,
    async open(pathname) {
      await page.goto(`${base}${pathname}`);
    },
    async shot(name) {
      const dir = path.join(ARTIFACTS, 'screenshots');
      mkdirSync(dir, { recursive: true });
      // The console scrolls inside its main area: the window grows to it for the picture, then goes back.
      const size = page.viewportSize() ?? { width: 1280, height: 860 };
      const height = await page.evaluate(() => document.querySelector('main')?.scrollHeight ?? 0);
      if (height > size.height) await page.setViewportSize({ width: size.width, height: Math.min(height + 80, 6000) });
      await page.screenshot({ path: path.join(dir, `${name}.png`), fullPage: true });
      if (height > size.height) await page.setViewportSize(size);
    },
    close: () => context.close(),
  };
}
