import type { Embedder } from '../../src/assistant/retrieval/retrieval.ts';

const DIMENSIONS = 512;
const STOP_WORDS = new Set('a an and are as at be by can do does for from how i in is it my of on or that the this to what when which with'.split(' '));

/** FNV-1a: a word's bucket, the same in every run. */
function bucket(word: string): number {
  let h = 2166136261;
  for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), 16777619);
  return (h >>> 0) % DIMENSIONS;
}

/**
 * A deterministic stand-in for an embedding model: each text as the counts of its words (crudely
 * stemmed, stop words left out) hashed into 512 dimensions. Texts sharing words are near.
 */
export function bagOfWordsVector(text: string): number[] {
  const vector = new Array<number>(DIMENSIONS).fill(0);
  for (const word of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
    if (!STOP_WORDS.has(word)) vector[bucket(word.replace(/(ing|ed|es|s)$/, ''))] += 1;
  }
  return vector;
}

export const bagOfWords: Embedder = async (texts) => texts.map(bagOfWordsVector);
