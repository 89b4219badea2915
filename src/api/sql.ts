/** Collects positional parameters while SQL text is assembled from trusted declarations. */
export class Params {
  readonly values: unknown[] = [];

  /** Adds a value and answers its placeholder ($1, $2, ...). */
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/** Quotes an identifier taken from a declaration. */
export function ident(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
