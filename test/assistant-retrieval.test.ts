import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { bagOfWords } from './helpers/bag-of-words.ts';
import { chunkMarkdown, OVERLAP, TARGET } from '../src/assistant/retrieval/chunking.ts';
import { droverCorpus, type Corpus, type SourceDocument } from '../src/assistant/retrieval/corpus.ts';
import { EMBEDDING_BATCH, openRetrieval } from '../src/assistant/retrieval/open-retrieval.ts';
import type { Embedder, Retrieval } from '../src/assistant/retrieval/retrieval.ts';

const DOCS = path.resolve(import.meta.dirname, '../docs');

/** Questions a user might ask, each with the page of docs/ that answers it. */
const QUESTIONS: [string, string][] = [
  ['How do I run a job again only on the hosts that failed last time?', 'docs/jobs.md'],
  ["Can a survey question's choices be filled in from the inventory's hosts when I launch?", 'docs/dynamic-survey-choices.md'],
  ['What happens to a launch when the OPA server is down?', 'docs/policy.md'],
  ['How do I get a Slack message when a job fails?', 'docs/notifications.md'],
  ['How do I make a template run every night at 2am?', 'docs/schedules.md'],
  ['How do I create a personal access token to use with the awx CLI?', 'docs/tokens.md'],
  ['How can I see which hosts changed their packages since the previous run?', 'docs/drift.md'],
  ['How do I pull my EC2 instances into an inventory automatically?', 'docs/inventory-sources.md'],
  ['Can a push to my GitHub repository start a job template?', 'docs/template-webhooks.md'],
  ['How do I make someone approve before the deploy step of a workflow continues?', 'docs/workflows.md'],
];

const HOSTILE_QUERIES = [
  "'); DROP TABLE assistant_chunks; --",
  'a & b | !c',
  '<->',
  '',
  '   ',
  '!!! ::: *** ((( )))',
  'job:* & !!relaunch <2> (failed',
  `"unclosed phrase -minus OR or`,
  "\\' \\\\ '' \"\" $1 $$ %s %d",
  'ad-hoc\u0000commands',
  'x'.repeat(100_000),
  'relaunch '.repeat(5_000),
  '\ud800 lone surrogate 🚀 ünïcödé 日本語',
];

const noEmbeddings: Embedder = async () => null;

/** How many questions find their page in the first three passages; misses are printed. */
async function topThreeHits(retrieval: Retrieval, label: string): Promise<number> {
  let hits = 0;
  for (const [question, page] of QUESTIONS) {
    const found = await retrieval.search(question, 3);
    if (found.some((c) => c.source === page)) hits++;
    else console.log(`retrieval miss (${label}): "${question}" wants ${page}, found ${found.map((c) => `${c.source} (${c.heading})`).join(', ')}`);
  }
  return hits;
}

describe('assistant retrieval', () => {
  let t: TestApp;
  let openapi: object;
  let corpus: Corpus;
  /** Documents the tests add to the corpus, and whether the OpenAPI document is to be had. */
  const extra: SourceDocument[] = [];
  let openapiAvailable = true;
  let corpusSize: number;

  const count = async (sql: string, params: unknown[] = []) => Number((await t.db.query<{ n: number }>(sql, params))[0].n);

  before(async () => {
    t = await createTestApp();
    const res = await t.get('/api/v2/openapi.json');
    assert.equal(res.status, 200);
    openapi = res.body;
    const base = droverCorpus({ docsDir: DOCS, openapi: async () => (openapiAvailable ? openapi : null) });
    corpus = async () => {
      const snapshot = await base();
      return { ...snapshot, documents: [...snapshot.documents, ...extra] };
    };
    corpusSize = (await corpus()).documents.length;
  });
  after(() => t.close());

  it('indexes docs/ and the API reference at first start, and finds the page that answers a question by its words', async () => {
    const retrieval = openRetrieval({ db: t.db, embed: noEmbeddings, corpus });
    assert.equal(await retrieval.isEmpty(), true);
    assert.equal(await retrieval.healthy(), true);

    const outcome = await retrieval.index({ rebuild: false });
    assert.equal(outcome.rebuild, false);
    assert.ok(outcome.indexed_chunks > 500, `indexed ${outcome.indexed_chunks} chunks`);
    assert.equal(await retrieval.isEmpty(), false);
    assert.equal(await count('SELECT count(*)::integer AS n FROM assistant_chunks'), outcome.indexed_chunks);
    assert.equal(await count('SELECT count(*)::integer AS n FROM assistant_chunks WHERE embedding IS NOT NULL'), 0);
    assert.equal(await count('SELECT count(*)::integer AS n FROM assistant_documents'), corpusSize);
    const sources = (await t.db.query<{ source: string; title: string }>('SELECT source, title FROM assistant_documents ORDER BY source')).map((r) => `${r.source}: ${r.title}`);
    assert.ok(sources.includes('docs/jobs.md: Jobs'), 'a page titled by its first heading');
    assert.ok(sources.includes('openapi:jobs: API endpoints: jobs'), 'the API reference, one document per tag');
    assert.ok(!sources.some((s) => !s.startsWith('docs/') && !s.startsWith('openapi:')), 'nothing but docs/ and the OpenAPI document');

    const hits = await topThreeHits(retrieval, 'words');
    assert.ok(hits >= 8, `${hits} of ${QUESTIONS.length} questions found their page in the first three passages`);

    // The API reference: each operation a section of its tag's document.
    const relaunch = await retrieval.search('which endpoint relaunches a job', 3);
    const operation = relaunch.find((c) => c.source === 'openapi:jobs');
    assert.ok(operation, JSON.stringify(relaunch.map((c) => c.source)));
    assert.match(operation.heading, /^(GET|POST) \/api\/v2\/jobs\/\{id\}\/relaunch\/$/);
    const post = (await retrieval.search('relaunch the job hosts credential_passwords', 10)).find((c) => c.heading === 'POST /api/v2/jobs/{id}/relaunch/');
    assert.ok(post);
    assert.match(post.text, /Relaunch the job/);
    assert.match(post.text, /- hosts \(string or null\): one of all, failed; default all/);
    assert.match(post.text, /Path parameters: id\./);
    const launch = (await retrieval.search('launch a job template extra_vars', 10)).find((c) => c.heading === 'POST /api/v2/job_templates/{id}/launch/');
    assert.ok(launch, 'request body fields are found');
    assert.equal(launch.title, 'API endpoints: job_templates');
    const scores = relaunch.map((c) => c.score);
    assert.deepEqual(scores, [...scores].sort((a, b) => b - a), 'best first');

    assert.deepEqual(await retrieval.index({ rebuild: false }), { indexed_chunks: 0, rebuild: false }, 'nothing changed, nothing indexed');
  });

  it('with embeddings: asks them in batches, stores them, and fuses the vector ranking with the words', async () => {
    const batches: number[] = [];
    const embed: Embedder = async (texts) => {
      batches.push(texts.length);
      return bagOfWords(texts);
    };
    const retrieval = openRetrieval({ db: t.db, embed, corpus });
    const outcome = await retrieval.index({ rebuild: true });
    assert.equal(outcome.rebuild, true);
    const chunks = await count('SELECT count(*)::integer AS n FROM assistant_chunks');
    assert.equal(outcome.indexed_chunks, chunks);
    assert.equal(batches.reduce((a, b) => a + b, 0), chunks);
    assert.ok(batches.every((n) => n <= EMBEDDING_BATCH) && batches.length === Math.ceil(chunks / EMBEDDING_BATCH), `batches ${batches.join(',')}`);
    assert.equal(await count('SELECT count(*)::integer AS n FROM assistant_chunks WHERE embedding IS NULL'), 0);

    batches.length = 0;
    const hits = await topThreeHits(retrieval, 'words and vectors');
    assert.ok(hits >= 8, `${hits} of ${QUESTIONS.length} questions found their page in the first three passages`);
    assert.deepEqual(batches, QUESTIONS.map(() => 1), 'each question embedded once');

    // A word found nowhere: the words find nothing, the nearest vectors still answer.
    const lexicalOnly = openRetrieval({ db: t.db, embed: noEmbeddings, corpus });
    assert.deepEqual(await lexicalOnly.search('zzyzxquux', 5), []);
    assert.equal((await retrieval.search('zzyzxquux', 5)).length, 5);
    // An embeddings server failing at search time: the words still answer.
    const failing = openRetrieval({ db: t.db, embed: async () => Promise.reject(new Error('connection refused')), corpus });
    assert.ok((await failing.search('relaunch a job', 5)).some((c) => c.source === 'docs/jobs.md'));
  });

  it('indexes again only documents that changed, removes those gone, and keeps the API reference while it is unavailable', async () => {
    const retrieval = openRetrieval({ db: t.db, embed: noEmbeddings, corpus });
    const indexedAt = async (source: string) => (await t.db.query('SELECT indexed_at::text AS at FROM assistant_documents WHERE source = $1', [source]))[0]?.at;
    const jobsIndexedAt = await indexedAt('docs/jobs.md');
    const apiDocuments = await count("SELECT count(*)::integer AS n FROM assistant_documents WHERE source LIKE 'openapi:%'");
    const wordsOf = async (query: string) => (await retrieval.search(query, 5)).map((c) => c.source);

    const page = (body: string): SourceDocument => ({ source: 'docs/zz-extra.md', title: 'Quokka farming', text: `# Quokka farming\n\n## Feeding\n\n${body}` });
    extra.push(page('Quokkas eat leaves at dawn. '.repeat(80)));
    const added = await retrieval.index({ rebuild: false });
    assert.equal(added.indexed_chunks, chunkMarkdown('Quokka farming', extra[0].text).length);
    assert.ok(added.indexed_chunks > 1);
    // Its chunks repeat one another: the best stands for them all.
    const found = await wordsOf('quokkas leaves');
    assert.equal(found[0], 'docs/zz-extra.md');
    assert.equal(found.filter((s) => s === 'docs/zz-extra.md').length, 1, found.join());

    extra[0] = page('Quokkas drink rainwater.');
    assert.deepEqual(await retrieval.index({ rebuild: false }), { indexed_chunks: 1, rebuild: false });
    assert.deepEqual(await wordsOf('quokka rainwater'), ['docs/zz-extra.md']);
    assert.ok(!(await wordsOf('leaves dawn')).includes('docs/zz-extra.md'), 'the old chunks are gone');
    assert.equal(await count("SELECT count(*)::integer AS n FROM assistant_chunks WHERE source = 'docs/zz-extra.md'"), 1);
    assert.equal(await indexedAt('docs/jobs.md'), jobsIndexedAt, 'other documents were left alone');
    const [chunk] = await t.db.query("SELECT heading, ordinal, title FROM assistant_chunks WHERE source = 'docs/zz-extra.md'");
    assert.deepEqual(chunk, { heading: 'Feeding', ordinal: 0, title: 'Quokka farming' });

    openapiAvailable = false;
    try {
      assert.deepEqual(await retrieval.index({ rebuild: false }), { indexed_chunks: 0, rebuild: false });
      assert.equal(await count("SELECT count(*)::integer AS n FROM assistant_documents WHERE source LIKE 'openapi:%'"), apiDocuments);
    } finally {
      openapiAvailable = true;
    }

    extra.length = 0;
    assert.deepEqual(await retrieval.index({ rebuild: false }), { indexed_chunks: 0, rebuild: false });
    assert.deepEqual(await wordsOf('quokka rainwater'), []);
    assert.equal(await count("SELECT count(*)::integer AS n FROM assistant_chunks WHERE source = 'docs/zz-extra.md'"), 0);
    assert.equal(await count('SELECT count(*)::integer AS n FROM assistant_documents'), corpusSize);
  });

  it('runs one indexing at a time, and a failed one leaves the index as it was', async () => {
    const events: string[] = [];
    let runs = 0;
    const tracked: Corpus = async () => {
      const run = ++runs;
      events.push(`read ${run}`);
      return corpus();
    };
    const retrieval = openRetrieval({ db: t.db, embed: noEmbeddings, corpus: tracked });
    extra.push({ source: 'docs/zz-concurrent.md', title: 'Concurrent', text: '# Concurrent\n\nWombats dig burrows.' });
    try {
      const [first, second] = await Promise.all([
        retrieval.index({ rebuild: false }).then((o) => (events.push('done 1'), o)),
        retrieval.index({ rebuild: false }).then((o) => (events.push('done 2'), o)),
      ]);
      assert.deepEqual(events, ['read 1', 'done 1', 'read 2', 'done 2']);
      assert.deepEqual([first.indexed_chunks, second.indexed_chunks], [1, 0]);
    } finally {
      extra.length = 0;
    }

    const before = await t.db.query('SELECT source, content_hash, indexed_at::text AS at FROM assistant_documents ORDER BY source');
    const chunks = await count('SELECT count(*)::integer AS n FROM assistant_chunks');
    const unchanged = async () => {
      assert.deepEqual(await t.db.query('SELECT source, content_hash, indexed_at::text AS at FROM assistant_documents ORDER BY source'), before);
      assert.equal(await count('SELECT count(*)::integer AS n FROM assistant_chunks'), chunks);
      assert.ok((await retrieval.search('relaunch failed hosts', 3)).some((c) => c.source === 'docs/jobs.md'));
    };
    // The embeddings server failing midway, or answering vectors that do not fit: nothing is written.
    let batches = 0;
    const failing = openRetrieval({
      db: t.db,
      embed: async (texts) => {
        if (++batches === 3) throw new Error('the embeddings server went away');
        return bagOfWords(texts);
      },
      corpus,
    });
    await assert.rejects(failing.index({ rebuild: true }), /went away/);
    await unchanged();
    const misshapen = openRetrieval({ db: t.db, embed: async (texts) => texts.map((_, i) => (i ? [1, 0] : [1, 0, 0])), corpus });
    await assert.rejects(misshapen.index({ rebuild: true }), /embeddings endpoint/);
    await unchanged();
    // The database refusing a document after the rebuild dropped the tables: rolled back whole.
    extra.push({ source: `docs/${randomBytes(10_000).toString('hex')}.md`, title: 'Too long a name', text: '# Too long a name\n\nIts source is too long for the index of sources.' });
    try {
      await assert.rejects(retrieval.index({ rebuild: true }));
    } finally {
      extra.length = 0;
    }
    await unchanged();

    // A failed indexing does not stop the next one: the concurrent page, removed, is the one change.
    assert.deepEqual(await failing.index({ rebuild: false }), { indexed_chunks: 0, rebuild: false });
    assert.equal(await count("SELECT count(*)::integer AS n FROM assistant_documents WHERE source = 'docs/zz-concurrent.md'"), 0);
  });

  it('takes any question text as data: SQL, text-search operators, odd characters and very long questions answer without error', async () => {
    const retrieval = openRetrieval({ db: t.db, embed: noEmbeddings, corpus });
    const chunks = await count('SELECT count(*)::integer AS n FROM assistant_chunks');
    for (const query of HOSTILE_QUERIES) {
      const found = await retrieval.search(query, 5);
      assert.ok(Array.isArray(found) && found.length <= 5, query.slice(0, 40));
    }
    const withVectors = openRetrieval({ db: t.db, embed: bagOfWords, corpus });
    for (const query of HOSTILE_QUERIES) assert.ok((await withVectors.search(query, 5)).length <= 5, query.slice(0, 40));
    assert.deepEqual(await retrieval.search('', 5), []);
    assert.ok((await retrieval.search("'); DROP TABLE assistant_chunks; --", 5)).every((c) => typeof c.text === 'string'));
    for (const limit of [0, -1, Number.NaN, 1e9]) assert.ok((await retrieval.search('relaunch', limit)).length <= 50, String(limit));
    assert.equal(await count('SELECT count(*)::integer AS n FROM assistant_chunks'), chunks, 'nothing was changed');

    const down = openRetrieval({ db: { ...t.db, kind: t.db.kind, query: () => Promise.reject(new Error('connection lost')), transaction: () => Promise.reject(new Error('connection lost')) }, embed: noEmbeddings, corpus });
    assert.equal(await down.healthy(), false);
  });

  it('cuts pages at headings into overlapping chunks of about 1,000 characters, each with its heading path, code blocks whole', async () => {
    const sentence = (i: number) => `Sentence ${i} says something about launching jobs on hosts.`;
    const code = ['```yaml', ...Array.from({ length: 20 }, (_, i) => `- task_${i}: {module: ping}`), '```'].join('\n');
    const page = [
      '# Guide',
      'Intro text.',
      '## Setup',
      Array.from({ length: 60 }, (_, i) => sentence(i)).join(' '),
      '### Details',
      'Short.',
      code,
      '## Other',
      '```sh\n# not a heading\n```',
    ].join('\n\n');
    const chunks = chunkMarkdown('Guide', page);
    assert.deepEqual(chunkMarkdown('Guide', page), chunks, 'deterministic');
    assert.deepEqual([...new Set(chunks.map((c) => c.heading))], ['Guide', 'Setup', 'Setup > Details', 'Other']);
    const setup = chunks.filter((c) => c.heading === 'Setup');
    assert.ok(setup.length >= 3);
    for (const [i, chunk] of setup.entries()) {
      assert.ok(chunk.text.length <= TARGET, `chunk of ${chunk.text.length} characters`);
      if (i === 0) continue;
      const previous = setup[i - 1].text;
      // The chunk starts with the end of the one before (about OVERLAP characters), then goes on.
      const overlap = [...Array(chunk.text.length).keys()].reverse().find((n) => n > 0 && previous.endsWith(chunk.text.slice(0, n))) ?? 0;
      assert.ok(overlap >= OVERLAP / 2 && overlap <= OVERLAP * 1.5, `overlap of ${overlap} characters`);
    }
    assert.ok(setup[0].text.startsWith(sentence(0)) && setup.at(-1)!.text.endsWith(sentence(59)));
    const details = chunks.filter((c) => c.heading === 'Setup > Details');
    assert.ok(details.some((c) => c.text.includes(code)), 'the code block is whole in one chunk');
    assert.deepEqual(chunks.find((c) => c.heading === 'Other')?.text, '```sh\n# not a heading\n```');

    // Stored: the real pages keep their heading paths.
    const [nested] = await t.db.query("SELECT heading FROM assistant_chunks WHERE source = 'docs/tokens.md' AND heading LIKE '% > %' ORDER BY ordinal LIMIT 1");
    assert.equal(nested?.heading, 'Personal access tokens > Users from external authentication');
  });
});
