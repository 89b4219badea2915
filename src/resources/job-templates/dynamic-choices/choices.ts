/** What every source answers: distinct strings, at most MAX_CHOICES (the first ones, in the source's order). */

export const MAX_CHOICES = 500;

/** A source that could not answer; its message is shown to the caller for that variable. */
export class SourceError extends Error {}

/** Scalars as strings (null and missing values left out); an object or a list among them is an error. */
export function toChoices(values: readonly unknown[]): string[] {
  const seen = new Set<string>();
  for (const value of values) {
    if (value === null || value === undefined) continue;
    if (typeof value === 'object') throw new SourceError('The source gave an object or a list where a value was expected (set value_field to pick one of its fields).');
    seen.add(String(value));
    if (seen.size >= MAX_CHOICES) break;
  }
  return [...seen];
}
