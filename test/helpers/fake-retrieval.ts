/**
 * A test double of the assistant's retrieval (src/assistant/retrieval/retrieval.ts): a few
 * passages in memory, ranked by the words they share with the question. Used only through
 * startAssistant (test/helpers/assistant.ts).
 */
import type { Retrieval, RetrievedChunk } from '../../src/assistant/retrieval/retrieval.ts';

export const FAKE_PASSAGES: readonly Omit<RetrievedChunk, 'score'>[] = [
  { source: 'docs/jobs.md', title: 'Jobs', heading: 'Relaunching a job', text: 'POST /api/v2/jobs/<id>/relaunch/ starts the job again with the same inputs.' },
  { source: 'docs/schedules.md', title: 'Schedules', heading: 'Rules', text: 'A schedule launches a template at times given by an RFC 5545 rule.' },
  { source: 'docs/tokens.md', title: 'Tokens', heading: 'Personal access tokens', text: 'A personal access token is sent as Authorization: Bearer <token>.' },
  { source: 'openapi:jobs', title: 'API reference: jobs', heading: 'POST /api/v2/jobs/{id}/relaunch/', text: 'Relaunch a job.' },
];

const words = (text: string) => new Set(text.toLowerCase().match(/[a-z0-9]+/g) ?? []);

export function fakeRetrieval(passages: readonly Omit<RetrievedChunk, 'score'>[] = FAKE_PASSAGES): Retrieval {
  let indexed = false;
  return {
    async search(query, limit) {
      const asked = words(query);
      return passages
        .map((p) => ({ ...p, score: [...words(`${p.title} ${p.heading} ${p.text}`)].filter((w) => asked.has(w)).length }))
        .filter((p) => p.score > 0)
        .sort((a, b) => b.score - a.score)
        .slice(0, limit);
    },
    async index({ rebuild }) {
      const count = rebuild || !indexed ? passages.length : 0;
      indexed = true;
      return { indexed_chunks: count, rebuild };
    },
    healthy: async () => true,
    isEmpty: async () => !indexed,
  };
}
