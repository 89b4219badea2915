/**
 * The chunks nearest a question's embedding by cosine: pgvector's `<=>` where the column is a
 * vector, otherwise over the stored arrays in this process, kept in memory between questions and
 * read again when the index changes (a corpus of a few thousand chunks is a few megabytes).
 */
import type { Queryable } from '../../db/database.ts';
import { COLUMNS, chunksById, type Candidate } from './search.ts';
import { vectorLiteral, type VectorMode } from './store.ts';

interface Loaded {
  /** What the index looked like when read (documents and their last indexing). */
  stamp: string;
  ids: number[];
  /** Unit vectors, in the order of ids. */
  vectors: Float32Array[];
}

export type NearestChunks = (mode: VectorMode, vector: number[], n: number) => Promise<Candidate[]>;

export function nearestChunks(db: Queryable): NearestChunks {
  let loaded: Promise<Loaded> | null = null;

  const load = async (stamp: string): Promise<Loaded> => {
    const rows = await db.query<{ id: number; embedding: number[] }>('SELECT id::integer AS id, embedding FROM assistant_chunks WHERE embedding IS NOT NULL ORDER BY id');
    return { stamp, ids: rows.map((r) => r.id), vectors: rows.map((r) => unit(r.embedding)) };
  };

  return async (mode, vector, n) => {
    if (mode === 'pgvector') {
      return db.query<Candidate>(
        `SELECT ${COLUMNS} FROM assistant_chunks c WHERE c.embedding IS NOT NULL AND vector_dims(c.embedding) = $2
         ORDER BY c.embedding <=> $1::vector, c.id LIMIT $3`,
        [vectorLiteral(mode, vector), vector.length, n],
      );
    }
    const [{ stamp }] = await db.query<{ stamp: string }>("SELECT count(*) || ' ' || coalesce(max(indexed_at)::text, '') AS stamp FROM assistant_documents");
    const current = await loaded?.catch(() => null);
    if (current?.stamp !== stamp) {
      loaded = load(stamp);
    }
    const { ids, vectors } = await loaded!;
    const query = unit(vector);
    const scored: { id: number; score: number }[] = [];
    vectors.forEach((v, i) => {
      if (v.length === query.length) scored.push({ id: ids[i], score: dot(v, query) });
    });
    scored.sort((a, b) => b.score - a.score || a.id - b.id);
    return chunksById(db, scored.slice(0, n).map((s) => s.id));
  };
}

function unit(vector: readonly number[]): Float32Array {
  const v = Float32Array.from(vector, (x) => (Number.isFinite(x) ? x : 0));
  const norm = Math.sqrt(dot(v, v)) || 1;
  for (let i = 0; i < v.length; i++) v[i] /= norm;
  return v;
}

function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i] * b[i];
  return sum;
}
