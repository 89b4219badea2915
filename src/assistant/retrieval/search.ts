/**
 * Finding passages for a question: PostgreSQL full-text ranking, and with embeddings a vector
 * ranking too, the two combined by reciprocal rank fusion. The question is only ever a bound
 * parameter, read by websearch_to_tsquery and plainto_tsquery, which accept any text.
 */
import type { Queryable } from '../../db/database.ts';
import type { RetrievedChunk } from './retrieval.ts';

/** Where a question is cut: questions are short; a page pasted in would only make slow queries. */
export const MAX_QUERY_LENGTH = 2000;
/** ts_rank_cd's weights of D (text), C (unused), B (heading) and A (title). */
const WEIGHTS = '{0.3, 0.5, 0.7, 1.0}';
/** ts_rank_cd's normalization: rank divided by 1 + the logarithm of the chunk's length. */
const NORMALIZATION = 1;
/** A word's rank r in a chunk counts as r / (r + SATURATION): many mentions add less and less. */
const SATURATION = 0.5;
/** Reciprocal rank fusion's constant (Cormack et al.): dampens the weight of the first few ranks. */
const RRF_K = 60;
/** Passages sharing more than this part of their word triples with a better one are left out. */
const DUPLICATE_SHARE = 0.6;
/** Passages with fewer word triples than this are duplicates only when equal. */
const MIN_TRIPLES = 8;

export interface Candidate {
  id: number;
  source: string;
  title: string;
  heading: string;
  text: string;
}

export const COLUMNS = 'c.id::integer AS id, c.source, c.title, c.heading, c.text';

/** The question as text the database accepts: no NUL, not over MAX_QUERY_LENGTH. */
export function cleanQuery(query: string): string {
  return String(query ?? '').replace(/\0/g, ' ').slice(0, MAX_QUERY_LENGTH).trim();
}

/**
 * The best chunks by full-text rank. First those with every word (websearch syntax: "phrases",
 * -not, or). When that finds fewer than n, the words are relaxed, rarest kept longest: words found
 * nowhere are left out, then the most common word at a time, each round's chunks ranked after the
 * last's; last, chunks with any of the words. Without this, an OR of every word would rank a page
 * mentioning "job" often above the one page naming "Slack".
 */
export async function lexicalSearch(db: Queryable, query: string, n: number): Promise<Candidate[]> {
  const found = await ranked(db, "websearch_to_tsquery('english', $1)", [query], n);
  if (found.length >= n) return found;
  const seen = new Set(found.map((c) => c.id));
  const add = (more: Candidate[]) => {
    for (const c of more) if (!seen.has(c.id) && found.length < n) found.push(c), seen.add(c.id);
  };
  add(await anyWords(db, query, n));
  return found;
}

/**
 * Chunks holding any of the question's words, each word counting by its rarity (BM25's inverse
 * document frequency) times its saturated full-text rank in the chunk.
 */
function anyWords(db: Queryable, query: string, n: number): Promise<Candidate[]> {
  return db.query<Candidate>(
    `WITH words AS (
       SELECT plainto_tsquery('simple', word) AS q FROM (SELECT DISTINCT word FROM unnest(tsvector_to_array(to_tsvector('english', $1))) AS word) AS w
     ), terms AS (
       SELECT words.q, ln(1 + (total.n - f.df + 0.5) / (f.df + 0.5)) AS idf
       FROM words, (SELECT count(*) AS n FROM assistant_chunks) AS total,
         LATERAL (SELECT count(*) AS df FROM assistant_chunks c WHERE c.search @@ words.q) AS f
       WHERE numnode(words.q) > 0 AND f.df > 0
     )
     SELECT ${COLUMNS} FROM assistant_chunks c JOIN terms ON c.search @@ terms.q,
       LATERAL (SELECT ts_rank_cd('${WEIGHTS}', c.search, terms.q, ${NORMALIZATION}) AS r) AS rank
     GROUP BY c.id ORDER BY sum(terms.idf * rank.r / (rank.r + ${SATURATION})) DESC, c.id LIMIT $2`,
    [query, n],
  );
}

function ranked(db: Queryable, tsquery: string, params: unknown[], n: number): Promise<Candidate[]> {
  return db.query<Candidate>(
    `SELECT ${COLUMNS} FROM assistant_chunks c, (SELECT ${tsquery} AS q) AS query
     WHERE numnode(query.q) > 0 AND c.search @@ query.q
     ORDER BY ts_rank_cd('${WEIGHTS}', c.search, query.q, ${NORMALIZATION}) DESC, c.id LIMIT $${params.length + 1}`,
    [...params, n],
  );
}

export async function chunksById(db: Queryable, ids: number[]): Promise<Candidate[]> {
  if (!ids.length) return [];
  const rows = await db.query<Candidate>(`SELECT ${COLUMNS} FROM assistant_chunks c WHERE c.id = ANY($1::bigint[])`, [ids]);
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

/** Rankings fused (reciprocal rank fusion), near-duplicates left out, the best `limit`. */
export function fuse(rankings: Candidate[][], limit: number): RetrievedChunk[] {
  const scored = new Map<number, { candidate: Candidate; score: number; first: number }>();
  rankings.forEach((ranking, list) =>
    ranking.forEach((candidate, rank) => {
      const entry = scored.get(candidate.id) ?? { candidate, score: 0, first: list * 1e6 + rank };
      entry.score += 1 / (RRF_K + rank + 1);
      scored.set(candidate.id, entry);
    }),
  );
  const ordered = [...scored.values()].sort((a, b) => b.score - a.score || a.first - b.first);
  const kept: { chunk: RetrievedChunk; triples: Set<string> }[] = [];
  for (const { candidate, score } of ordered) {
    if (kept.length >= limit) break;
    const triples = wordTriples(candidate.text);
    if (kept.some((k) => shared(k.triples, triples) > DUPLICATE_SHARE)) continue;
    const { source, title, heading, text } = candidate;
    kept.push({ chunk: { source, title, heading, text, score }, triples });
  }
  return kept.map((k) => k.chunk);
}

function wordTriples(text: string): Set<string> {
  const words = text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [];
  const triples = new Set<string>();
  for (let i = 0; i + 2 < words.length; i++) triples.add(`${words[i]} ${words[i + 1]} ${words[i + 2]}`);
  if (!triples.size && words.length) triples.add(words.join(' '));
  return triples;
}

/**
 * The part of the smaller set found in the other. Short passages (the API reference's "Read a Job.
 * Path parameters: id.") count as duplicates only when equal: a few shared words say little.
 */
function shared(a: Set<string>, b: Set<string>): number {
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  if (!small.size) return 0;
  let common = 0;
  for (const t of small) if (large.has(t)) common++;
  if (small.size < MIN_TRIPLES) return common === small.size && small.size === large.size ? 1 : 0;
  return common / small.size;
}
