/**
 * Retrieval without an index: no passage matches any question, indexing indexes nothing, and the
 * store is the database, answering or not. The assistant runs on it while no index is plugged in
 * (see src/main.ts): answers then say the documentation does not cover the question.
 */
import type { RetrievalFactory } from './compose.ts';

export const unindexedRetrieval: RetrievalFactory = ({ db }) => ({
  search: async () => [],
  index: async ({ rebuild }) => ({ indexed_chunks: 0, rebuild }),
  healthy: async () => {
    await db.query('SELECT 1');
    return true;
  },
  isEmpty: async () => false,
});
