import { readFileSync } from 'node:fs';
import path from 'node:path';

/** The fenced code blocks of one language in a file under docs/, in order: tests run what a page shows. */
export function codeBlocks(page: string, language: string): string[] {
  const text = readFileSync(path.resolve(import.meta.dirname, '../../docs', page), 'utf8');
  return [...text.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].filter((m) => m[1] === language).map((m) => m[2]);
}
