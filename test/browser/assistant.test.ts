import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { createTestApp, type TestApp } from '../helpers/app.ts';
import { startAssistant, type TestAssistant } from '../helpers/assistant.ts';
import { consolePage, serve } from '../helpers/browser.ts';
import { newUser, type User } from '../helpers/factories.ts';
import { startLlmServer, type LlmServer } from '../helpers/llm-server.ts';
import { refusingUrl } from '../helpers/opa-server.ts';
import { EventStreamParser } from '../../src/assistant/event-stream.ts';
import { jsonEvents } from '../../ui/src/assistant/event-stream.ts';

/** The panel's parts, as a user finds them. */
function panel(page: Page) {
  const region = page.getByRole('region', { name: 'Assistant', exact: true });
  return {
    region,
    log: region.getByRole('log'),
    question: region.getByLabel('Your question'),
    send: region.getByRole('button', { name: 'Send' }),
    stop: region.getByRole('button', { name: 'Stop' }),
    /** The answer of the n-th question (from 0). */
    answer: (n: number) => region.locator('.drover-assistant-answer').nth(n),
    async ask(text: string) {
      await this.question.fill(text);
      await this.question.press('Enter');
    },
  };
}

async function openPanel(page: Page) {
  await page.getByRole('button', { name: 'Assistant', exact: true }).click();
  await page.getByRole('heading', { name: 'Assistant', level: 2 }).waitFor();
}

/** The system message the language model server received last. */
const lastSystemMessage = (llm: LlmServer): string => llm.chats.at(-1)!.body.messages[0].content;

/**
 * The console's assistant panel against the real chain: the console in Chromium, the main service
 * passing /assistant/ on, the assistant service, and a loopback OpenAI-compatible server streaming
 * the answer (held open until the test releases it).
 */
describe('console: the assistant panel', { timeout: 180_000 }, () => {
  let t: TestApp;
  let llm: LlmServer;
  let assistant: TestAssistant;
  let user: User;

  before(async () => {
    t = await createTestApp({}, { dispatcher: false });
    llm = await startLlmServer();
    assistant = await startAssistant({ mainUrl: await serve(t), llmUrl: llm.url, db: t.db });
    // Sources come from the index the assistant builds at its first start.
    await assistant.firstIndex;
    t.env.assistant.url = assistant.url;
    user = await newUser(t);
  });
  after(async () => {
    await assistant?.close();
    await llm?.close();
    await t?.close();
  });

  it('reads events split anywhere across chunks, and several in one', async () => {
    const events = [{ token: 'Un été ✓' }, { token: 'line\nbreak' }, { token: 'two lines' }, { done: true, sources: [] }];
    const text =
      `: comment\r\ndata: ${JSON.stringify(events[0])}\r\n\r\nevent: x\nid: 1\ndata:${JSON.stringify(events[1])}\r\r` +
      `data: {"token":\r\ndata: "two lines"}\r\n\r\ndata: ${JSON.stringify(events[3])}\n\ndata: {"token": "never ended"}\n`;
    const bytes = new TextEncoder().encode(text);
    for (let cut = 0; cut <= bytes.length; cut++) {
      for (const step of [1, 7, bytes.length]) {
        const pieces: Uint8Array[] = [bytes.slice(0, cut)];
        for (let i = cut; i < bytes.length; i += step) pieces.push(bytes.slice(i, i + step));
        const body = new ReadableStream<Uint8Array>({
          pull(controller) {
            const next = pieces.shift();
            if (next) controller.enqueue(next);
            else controller.close();
          },
        });
        const got: unknown[] = [];
        for await (const event of jsonEvents(body)) got.push(event);
        assert.deepEqual(got, events, `cut at ${cut}, then every ${step} bytes`);
      }
    }
    assert.deepEqual(new EventStreamParser().push('data: a\ndata: b\n\ndata\n\n'), ['a\nb', '']);
  });

  it('streams an answer as Markdown with its sources, sends the page and the history, and keeps the conversation across pages', async () => {
    const c = await consolePage(t, user, '/jobs');
    try {
      const { page } = c;
      await openPanel(page);
      const p = panel(page);
      const held = {
        before: ['To relaunch a job:\n\n', '1. Open the **job**\n', '2. Press `Relaunch`\n\n'],
        after: ['Or through the API:\n\n```sh\ncurl -X POST /api/v2/jobs/1/relaunch/\n```\n\n', '| field | use |\n|---|---|\n| limit | hosts |\n\n', 'See [the jobs list](/jobs) [1].'],
      };
      llm.answer(held);
      await p.ask('How do I relaunch a job?');
      // The first tokens are on screen while the model server still holds the rest.
      await p.answer(0).locator('ol li strong', { hasText: 'job' }).waitFor();
      await p.answer(0).locator('code', { hasText: 'Relaunch' }).waitFor();
      assert.equal(await p.answer(0).locator('pre').count(), 0);
      assert.equal(await p.send.isDisabled(), true);
      assert.equal(await p.log.getAttribute('aria-live'), 'polite');
      assert.equal(await p.answer(0).getAttribute('aria-busy'), 'true');
      assert.match(lastSystemMessage(llm), /looking at this page of the Drover web console: "\/jobs"/);
      await c.shot('assistant-streaming');

      llm.release();
      await p.answer(0).locator('pre code', { hasText: 'curl -X POST /api/v2/jobs/1/relaunch/' }).waitFor();
      await p.answer(0).locator('table td', { hasText: 'limit' }).waitFor();
      const sources = p.answer(0).getByRole('list', { name: 'Sources' });
      await sources.getByText('docs/jobs.md').first().waitFor();
      assert.equal(await p.answer(0).getAttribute('aria-busy'), 'false');
      assert.equal(await p.stop.count(), 0);
      await c.shot('assistant-answer');

      // Moving to another page keeps the panel and its conversation; so does closing and opening it again.
      await page.getByRole('link', { name: 'Templates', exact: true }).click();
      await page.waitForURL((url) => url.pathname === '/job_templates');
      await p.answer(0).getByText('Open the').waitFor();
      const toggle = page.getByRole('button', { name: 'Assistant', exact: true });
      await p.region.getByRole('button', { name: 'Close the assistant' }).click();
      await p.region.waitFor({ state: 'detached' });
      assert.equal(await toggle.getAttribute('aria-expanded'), 'false');
      assert.equal(await toggle.evaluate((el) => el === document.activeElement), true);
      await page.keyboard.press('Enter');
      await p.answer(0).getByText('Open the').waitFor();
      assert.equal(await p.question.evaluate((el) => el === document.activeElement), true);
      llm.answer({ tokens: ['Use a ', 'schedule.'] });
      await p.question.pressSequentially('And every night?');
      await p.question.press('Shift+Enter');
      await p.question.pressSequentially('With a survey.');
      await p.question.press('Enter');
      await p.answer(1).getByText('Use a schedule.').waitFor();
      const sent = llm.chats.at(-1)!.body.messages as Array<{ role: string; content: string }>;
      assert.match(sent[0].content, /console: "\/job_templates"/);
      assert.deepEqual(sent.slice(1).map((m) => m.role), ['user', 'assistant', 'user']);
      assert.equal(sent[1].content, 'How do I relaunch a job?');
      assert.equal(sent[2].content, [...held.before, ...held.after].join(''));
      assert.equal(sent[3].content, 'And every night?\nWith a survey.');
      await p.answer(0).getByRole('link', { name: 'the jobs list' }).click();
      await page.waitForURL((url) => url.pathname === '/jobs');
      await p.answer(1).getByText('Use a schedule.').waitFor();
      assert.deepEqual(c.errors, []);
    } finally {
      await c.close();
    }
  });

  it('shows failures in the conversation: the model failing, the service down, a degraded health', async () => {
    llm.models = ['another-model'];
    const c = await consolePage(t, user, '/inventories');
    try {
      const { page } = c;
      await openPanel(page);
      const p = panel(page);
      await p.region.getByText('The assistant is degraded').waitFor();
      await p.region.getByText('does not offer the model llama3.1').waitFor();

      llm.answer({ status: 500 });
      await p.ask('What is an inventory?');
      await p.answer(0).getByText('The assistant could not answer').waitFor();
      assert.match(await p.answer(0).innerText(), /language model/i);

      const running = t.env.assistant.url;
      t.env.assistant.url = await refusingUrl();
      try {
        await p.ask('Still there?');
        await p.answer(1).getByText('The assistant service is not running or not reachable.').waitFor();
      } finally {
        t.env.assistant.url = running;
      }
      await c.shot('assistant-failures');
      assert.deepEqual(c.errors, []);
    } finally {
      llm.models = ['llama3.1:latest', 'nomic-embed-text:latest'];
      await c.close();
    }
  });

  it('stops an answer, which closes the model request; markup in an answer stays text', async () => {
    const c = await consolePage(t, user, '/');
    try {
      const { page } = c;
      let dialogs = 0;
      page.on('dialog', (dialog) => (dialogs++, void dialog.dismiss()));
      await openPanel(page);
      const p = panel(page);

      llm.answer({ before: ['Partial answer'], after: ['never shown'] });
      await p.ask('Tell me everything');
      await p.answer(0).getByText('Partial answer').waitFor();
      const closed = llm.nextClientClose();
      await p.stop.click();
      await closed;
      await p.answer(0).getByText('Stopped.').waitFor();
      assert.equal(await p.answer(0).getByText('never shown').count(), 0);

      const hostile = [
        'Look: <script>window.__injected = 1</script>',
        ' and <img src=x onerror="window.__injected = 2">',
        ' [click](javascript:window.__injected=3)',
        ' ![pic](http://127.0.0.1:9/tracker.png)\n\n',
        '<script>window.__injected = 4</script>\n',
      ];
      llm.answer({ tokens: hostile });
      await p.ask('<b>bold?</b>');
      await p.answer(1).getByText('<script>window.__injected = 1</script>').waitFor();
      await p.answer(1).getByText('<img src=x onerror="window.__injected = 2">').waitFor();
      await p.answer(1).getByText('<script>window.__injected = 4</script>').waitFor();
      await p.region.getByText('<b>bold?</b>').waitFor();
      assert.equal(await p.region.locator('img, script, b').count(), 0);
      assert.equal(await p.answer(1).locator('a[href^="javascript"]').count(), 0);
      const pic = p.answer(1).getByRole('link', { name: 'pic' });
      assert.equal(await pic.getAttribute('target'), '_blank');
      assert.match((await pic.getAttribute('rel')) ?? '', /noopener/);
      assert.equal(await page.evaluate(() => (window as { __injected?: number }).__injected), undefined);
      assert.equal(dialogs, 0);
      assert.deepEqual(c.errors, []);
    } finally {
      await c.close();
    }
  });
});
