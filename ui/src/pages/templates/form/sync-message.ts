import { ApiError } from '../../../api/errors';
import type { RelatedList } from './template-layout';

/** What a refused change of a related list says, for the list's field: the API's message on it, else its other messages. */
export function syncMessage(list: RelatedList, err: unknown): string {
  if (!(err instanceof ApiError)) return err instanceof Error ? err.message : String(err);
  const byField = err.fieldErrors;
  return byField[list] ?? (Object.values(byField).join(' ') || err.message);
}
