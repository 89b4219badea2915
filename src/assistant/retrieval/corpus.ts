/**
 * What the assistant answers from: every Markdown page under docs/, and the main service's API
 * reference made from its OpenAPI document (one document per tag, see openapi-reference.ts).
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { firstHeading } from './markdown.ts';
import { OPENAPI_SOURCE_PREFIX, openApiDocuments } from './openapi-reference.ts';

/** One document of the corpus: its text is Markdown. */
export interface SourceDocument {
  /** `docs/jobs.md`, or `openapi:<tag>` for the API reference. */
  source: string;
  title: string;
  text: string;
}

export interface CorpusSnapshot {
  documents: SourceDocument[];
  /**
   * Prefixes of sources that could not be read this time (the API reference while the OpenAPI
   * document is unavailable): documents indexed before under them are kept, not removed.
   */
  unavailable: string[];
}

/** The corpus as it is now; read again at every indexing. */
export type Corpus = () => Promise<CorpusSnapshot>;

export interface DroverCorpusOptions {
  /** The docs/ folder. */
  docsDir: string;
  /** The main service's OpenAPI document (GET /api/v2/openapi.json), or null when it cannot be had. */
  openapi: () => Promise<object | null>;
}

export function droverCorpus({ docsDir, openapi }: DroverCorpusOptions): Corpus {
  return async () => {
    const pages = await markdownDocuments(docsDir);
    const reference = await openapi().then(
      (doc) => (doc ? openApiDocuments(doc) : null),
      (err) => {
        console.error('assistant: the OpenAPI document is unavailable:', err instanceof Error ? err.message : err);
        return null;
      },
    );
    return { documents: [...pages, ...(reference ?? [])], unavailable: reference ? [] : [OPENAPI_SOURCE_PREFIX] };
  };
}

/** Every .md file under dir (sub-folders too), in path order, as `docs/<relative path>`. */
export async function markdownDocuments(dir: string): Promise<SourceDocument[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const files = entries
    .filter((e) => e.isFile() && e.name.endsWith('.md'))
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)).split(path.sep).join('/'))
    .sort();
  return Promise.all(
    files.map(async (file) => {
      const text = await readFile(path.join(dir, file), 'utf8');
      return { source: `docs/${file}`, title: firstHeading(text) ?? file.replace(/\.md$/, ''), text };
    }),
  );
}
