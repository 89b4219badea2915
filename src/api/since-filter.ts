import { ValidationError } from './errors.ts';
import { parseIsoDatetime } from './fields.ts';
import type { Params } from './sql.ts';

/** `?since=`: records created at or after a date or datetime (the decision and result logs). */
export function createdSince(value: string, alias: string, params: Params): string {
  const since = parseIsoDatetime(value);
  if (!since) throw ValidationError.field('since', 'Enter a date or datetime: YYYY-MM-DD or YYYY-MM-DDThh:mm[:ss][Z|±HH:MM].');
  return `${alias}.created >= ${params.add(since)}`;
}
