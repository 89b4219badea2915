/**
 * What the assistant's chat needs of retrieval, and what retrieval needs of the language model server:
 * the seam between the service (src/assistant/) and the index (src/assistant/retrieval/).
 */

/** One passage of a document, as found for a question. */
export interface RetrievedChunk {
  /** Where the passage comes from: `docs/jobs.md`, or `openapi:<tag>` for the API reference. */
  source: string;
  /** The document's title (its first heading). */
  title: string;
  /** The heading the passage sits under. */
  heading: string;
  text: string;
  /** Higher is better; comparable only within one answer. */
  score: number;
}

export interface IndexOutcome {
  indexed_chunks: number;
  rebuild: boolean;
}

export interface Retrieval {
  /** The passages best matching the question, best first. */
  search(query: string, limit: number): Promise<RetrievedChunk[]>;
  /** Indexes the corpus: rebuild drops the index first; otherwise only documents that changed are indexed again. */
  index(options: { rebuild: boolean }): Promise<IndexOutcome>;
  /** Whether the store answers (health's vector_store). */
  healthy(): Promise<boolean>;
  /** Whether the index holds anything yet (the service indexes at first start when it does not). */
  isEmpty(): Promise<boolean>;
}

/**
 * Embeddings of texts, one vector per text, through the language model server's /v1/embeddings; null
 * when the server or model offers none (retrieval is then lexical).
 */
export type Embedder = (texts: string[]) => Promise<number[][] | null>;
