import { ApiError } from '../../api/errors';

/** The graph endpoints answer {Error: "Cycle detected."}: shown as the API's sentence alone. */
export function edgeErrorMessage(error: unknown): unknown {
  if (error instanceof ApiError && error.body && typeof error.body === 'object') {
    const said = (error.body as Record<string, unknown>).Error;
    if (typeof said === 'string') return new Error(said);
  }
  return error;
}
