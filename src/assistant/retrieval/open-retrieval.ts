/**
 * Retrieval over the corpus, stored in the service's database (PGlite or PostgreSQL, the same SQL):
 * indexing (only what changed, or everything on a rebuild), and search.
 */
import { createHash } from 'node:crypto';
import type { Database } from '../../db/database.ts';
import { replaceNul } from '../../db/nul.ts';
import { chunkMarkdown, CHUNKING_VERSION, type Chunk } from './chunking.ts';
import type { Corpus, SourceDocument } from './corpus.ts';
import type { Embedder, IndexOutcome, Retrieval } from './retrieval.ts';
import { cleanQuery, fuse, lexicalSearch } from './search.ts';
import { ensureSchema, indexedHashes, lockIndex, recreateTables, removeDocuments, vectorSupport, writeDocument, type VectorMode } from './store.ts';
import { nearestChunks } from './vector-search.ts';

/** Texts per request to the embeddings endpoint. */
export const EMBEDDING_BATCH = 64;
/** Passages a search answers at most. */
const MAX_LIMIT = 50;

export interface RetrievalOptions {
  db: Database;
  /** Embeddings of texts, or null when the model offers none (search is then lexical only). */
  embed: Embedder;
  corpus: Corpus;
}

export function openRetrieval({ db, embed, corpus }: RetrievalOptions): Retrieval {
  let schema: Promise<VectorMode> | null = null;
  const ready = () =>
    (schema ??= ensureSchema(db).catch((err) => {
      schema = null;
      throw err;
    }));
  const nearest = nearestChunks(db);
  // One indexing at a time in this process (the advisory lock orders processes): a second waits.
  let indexing: Promise<unknown> = Promise.resolve();

  const indexCorpus = async (rebuild: boolean): Promise<IndexOutcome> => {
    const snapshot = await corpus();
    const mode = rebuild ? await vectorSupport(db) : await ready();
    const indexed = rebuild ? new Map<string, string>() : await indexedHashes(db);
    const documents = uniqueBySource(snapshot.documents).map((d) => ({ ...d, hash: contentHash(d) }));
    const present = new Set(documents.map((d) => d.source));
    const removed = [...indexed.keys()].filter((s) => !present.has(s) && !snapshot.unavailable.some((prefix) => s.startsWith(prefix)));
    const changed = documents.filter((d) => indexed.get(d.source) !== d.hash).map((document) => ({ document, chunks: chunkMarkdown(document.title, document.text) }));
    const texts = changed.flatMap(({ document, chunks }) => chunks.map((c) => embeddingText(document.title, c)));
    // Embeddings are asked before the transaction, which then only writes.
    const vectors = await embedAll(embed, texts);
    await db.transaction(async (tx) => {
      await lockIndex(tx);
      if (rebuild) await recreateTables(tx, mode);
      else await removeDocuments(tx, removed);
      let next = 0;
      for (const { document, chunks } of changed) {
        await writeDocument(tx, mode, document, chunks.map((chunk, ordinal) => ({ ...chunk, ordinal, embedding: vectors?.[next++] ?? null })));
      }
    });
    if (rebuild) schema = Promise.resolve(mode);
    return { indexed_chunks: texts.length, rebuild };
  };

  /** The chunks nearest the question's embedding; none when the model offers none, or fails. */
  const nearestToQuestion = async (mode: VectorMode, query: string, n: number) => {
    try {
      const [vector] = (await embed([query])) ?? [];
      return isVector(vector) ? await nearest(mode, vector, n) : [];
    } catch (err) {
      console.error('assistant: the vector ranking failed, searching by words only:', err instanceof Error ? err.message : err);
      return [];
    }
  };

  return {
    async search(query, limit) {
      const text = cleanQuery(query);
      const n = Number.isFinite(limit) ? Math.min(Math.floor(limit), MAX_LIMIT) : 5;
      if (!text || n < 1) return [];
      const mode = await ready();
      const pool = Math.max(n * 4, 20);
      const [lexical, vector] = await Promise.all([lexicalSearch(db, text, pool), nearestToQuestion(mode, text, pool)]);
      return fuse([lexical, vector], n);
    },
    index(options) {
      const run = indexing.then(() => indexCorpus(options?.rebuild === true));
      indexing = run.catch(() => undefined);
      return run;
    },
    async healthy() {
      try {
        await ready();
        await db.query('SELECT 1 FROM assistant_documents LIMIT 1');
        return true;
      } catch {
        return false;
      }
    },
    async isEmpty() {
      await ready();
      return (await db.query('SELECT 1 FROM assistant_documents LIMIT 1')).length === 0;
    },
  };
}

/** What is embedded for a chunk: its title and heading lead its text. */
export function embeddingText(title: string, chunk: Chunk): string {
  return `${chunk.heading === title ? title : `${title}\n${chunk.heading}`}\n\n${chunk.text}`;
}

function contentHash(document: SourceDocument): string {
  return createHash('sha256').update(`${CHUNKING_VERSION}\0${document.title}\0${document.text}`).digest('hex');
}

/** The documents, the first of any source given twice, with what the database cannot hold (NUL) replaced. */
function uniqueBySource(documents: SourceDocument[]): SourceDocument[] {
  const seen = new Map<string, SourceDocument>();
  for (const d of documents) {
    const source = replaceNul(d.source);
    if (!seen.has(source)) seen.set(source, { source, title: replaceNul(d.title), text: replaceNul(d.text) });
  }
  return [...seen.values()];
}

const isVector = (v: unknown): v is number[] => Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === 'number' && Number.isFinite(x));

/** Embeddings of every text, asked EMBEDDING_BATCH at a time; null as soon as the embedder offers none. */
async function embedAll(embed: Embedder, texts: string[]): Promise<number[][] | null> {
  const out: number[][] = [];
  for (let start = 0; start < texts.length; start += EMBEDDING_BATCH) {
    const batch = texts.slice(start, start + EMBEDDING_BATCH);
    const vectors = await embed(batch);
    if (!vectors) return null;
    if (vectors.length !== batch.length || !vectors.every(isVector) || vectors.some((v) => v.length !== (out[0] ?? vectors[0]).length)) {
      throw new Error(`the embeddings endpoint answered ${vectors.length} vectors of unequal or invalid form for ${batch.length} texts`);
    }
    out.push(...vectors);
  }
  return out;
}
