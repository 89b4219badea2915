/**
 * Lists of a generated enum's values, for the console's menus and filters. The values are typed
 * against the schema (schema.d.ts): tsc fails when a value is not the server's, and when the server
 * adds one the list lacks.
 */
type Missing<T, A extends readonly unknown[]> = Exclude<T, A[number]>;

/** Every value of the enum `T`, in the order given: `enumValues<Severity>()(['critical', 'high', 'medium', 'low'])`. */
export const enumValues =
  <T extends string | number>() =>
  <const A extends readonly T[]>(values: A, ..._complete: [Missing<T, A>] extends [never] ? [] : [missing: Missing<T, A>]): A =>
    values;

/** The keys of a label table keyed by an enum (Record<T, ...> already holds every value). */
export const enumKeys = <T extends string>(labels: Record<T, unknown>): T[] => Object.keys(labels) as T[];
