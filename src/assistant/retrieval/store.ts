/**
 * The index's tables, made by this module when missing (with PostgreSQL they live in the main
 * database, hence the assistant_ prefix). Chunks carry a tsvector of their title and heading
 * weighted above their text, and their embedding when the model offers them: a pgvector `vector`
 * when the server has the extension, otherwise real[] ranked in TypeScript (vector-search.ts).
 */
import type { Database, Queryable } from '../../db/database.ts';

/** How embeddings are stored: pgvector's type, or plain arrays. */
export type VectorMode = 'pgvector' | 'array';

/** Serialises indexing and schema changes across processes sharing a database. */
const INDEX_LOCK = "hashtext('assistant_index')";

export interface ChunkRow {
  heading: string;
  ordinal: number;
  text: string;
  embedding: number[] | null;
}

/** Creates the tables when missing; answers how embeddings are stored in them. */
export async function ensureSchema(db: Database): Promise<VectorMode> {
  const wanted = await vectorSupport(db);
  return db.transaction(async (tx) => {
    await lockIndex(tx);
    const [column] = await tx.query<{ udt_name: string }>(
      "SELECT udt_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'assistant_chunks' AND column_name = 'embedding'",
    );
    if (column) return column.udt_name === 'vector' ? 'pgvector' : 'array';
    await createTables(tx, wanted);
    return wanted;
  });
}

/**
 * pgvector when the server offers it and it can be created. PGlite loads no extension: it keeps
 * arrays. Run outside a transaction, so a refused CREATE EXTENSION spoils nothing.
 */
export async function vectorSupport(db: Database): Promise<VectorMode> {
  if (db.kind === 'embedded') return 'array';
  const available = await db.query("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'");
  if (!available.length) return 'array';
  try {
    await db.query('CREATE EXTENSION IF NOT EXISTS vector');
    return 'pgvector';
  } catch (err) {
    console.error('assistant: pgvector is available but could not be created, embeddings are kept as arrays:', err instanceof Error ? err.message : err);
    return 'array';
  }
}

export async function lockIndex(tx: Queryable): Promise<void> {
  await tx.query(`SELECT pg_advisory_xact_lock(${INDEX_LOCK})`);
}

async function createTables(tx: Queryable, mode: VectorMode): Promise<void> {
  await tx.exec(`
    CREATE TABLE IF NOT EXISTS assistant_documents (
      source text PRIMARY KEY,
      title text NOT NULL,
      content_hash text NOT NULL,
      indexed_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE TABLE IF NOT EXISTS assistant_chunks (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      source text NOT NULL REFERENCES assistant_documents (source) ON DELETE CASCADE,
      title text NOT NULL,
      heading text NOT NULL,
      ordinal integer NOT NULL,
      text text NOT NULL,
      search tsvector NOT NULL GENERATED ALWAYS AS (
        setweight(to_tsvector('english', title), 'A') || setweight(to_tsvector('english', heading), 'B') || setweight(to_tsvector('english', text), 'D')
      ) STORED,
      embedding ${mode === 'pgvector' ? 'vector' : 'real[]'},
      UNIQUE (source, ordinal)
    );
    CREATE INDEX IF NOT EXISTS assistant_chunks_search ON assistant_chunks USING gin (search);
  `);
}

/** Drops the tables and makes them again (a rebuild also picks up pgvector installed since). */
export async function recreateTables(tx: Queryable, mode: VectorMode): Promise<void> {
  await tx.exec('DROP TABLE IF EXISTS assistant_chunks; DROP TABLE IF EXISTS assistant_documents;');
  await createTables(tx, mode);
}

/** source -> content hash of what is indexed. */
export async function indexedHashes(db: Queryable): Promise<Map<string, string>> {
  const rows = await db.query<{ source: string; content_hash: string }>('SELECT source, content_hash FROM assistant_documents');
  return new Map(rows.map((r) => [r.source, r.content_hash]));
}

export async function removeDocuments(tx: Queryable, sources: string[]): Promise<void> {
  if (sources.length) await tx.query('DELETE FROM assistant_documents WHERE source = ANY($1::text[])', [sources]);
}

const ROWS_PER_INSERT = 100;

/** Replaces a document and its chunks. */
export async function writeDocument(tx: Queryable, mode: VectorMode, document: { source: string; title: string; hash: string }, chunks: ChunkRow[]): Promise<void> {
  await removeDocuments(tx, [document.source]);
  await tx.query('INSERT INTO assistant_documents (source, title, content_hash) VALUES ($1, $2, $3)', [document.source, document.title, document.hash]);
  const cast = mode === 'pgvector' ? 'vector' : 'real[]';
  for (let start = 0; start < chunks.length; start += ROWS_PER_INSERT) {
    const batch = chunks.slice(start, start + ROWS_PER_INSERT);
    const params: unknown[] = [document.source, document.title];
    const values = batch.map((chunk) => {
      params.push(chunk.heading, chunk.ordinal, chunk.text, chunk.embedding && vectorLiteral(mode, chunk.embedding));
      const n = params.length;
      return `($1, $2, $${n - 3}, $${n - 2}, $${n - 1}, $${n}::${cast})`;
    });
    await tx.query(`INSERT INTO assistant_chunks (source, title, heading, ordinal, text, embedding) VALUES ${values.join(', ')}`, params);
  }
}

/** A vector as the text its column type reads: '[1,2]' for pgvector, '{1,2}' for real[]. */
export function vectorLiteral(mode: VectorMode, vector: readonly number[]): string {
  const numbers = vector.map((x) => (Number.isFinite(x) ? String(x) : '0')).join(',');
  return mode === 'pgvector' ? `[${numbers}]` : `{${numbers}}`;
}
