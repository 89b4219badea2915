/** Rows of a list editor, each with a key of its own so that moving a row keeps its inputs' state. */
export type Keyed<T> = T & { key: number };

let serial = 0;

export const keyed = <T extends object>(item: T): Keyed<T> => ({ ...item, key: ++serial });

export const withoutKey = <T extends object>({ key: _key, ...item }: Keyed<T>): T => item as unknown as T;

/** The rows with row `index` moved by `by` (-1 up, 1 down); unchanged at either end. */
export function moved<T>(rows: T[], index: number, by: -1 | 1): T[] {
  const to = index + by;
  if (to < 0 || to >= rows.length) return rows;
  const next = [...rows];
  [next[index], next[to]] = [next[to], next[index]];
  return next;
}
