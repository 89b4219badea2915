import { ApiError, ValidationError } from '../../api/errors.ts';
import { PgError, pgErrorCode } from '../../db/database.ts';
import type { BodyProblem } from './tenant-values.ts';

/** The tenants' 400: every bad field of the body, by its name in the body (docs/tenants.md). */
export const bodyRefused = (problems: readonly BodyProblem[]) => new ApiError(400, { errors: problems });

/** A refusal met while writing, in a body's words: a ValidationError's fields renamed as the body names them. */
export function asBodyRefusal(err: unknown, fieldNames: Record<string, string>): unknown {
  if (err instanceof ValidationError) {
    return bodyRefused(Object.entries(err.errors).flatMap(([field, messages]) => messages.map((message) => ({ field: fieldNames[field] ?? '__all__', message }))));
  }
  // A custom domain taken by a concurrent write, past the check made before.
  if (pgErrorCode(err) === PgError.uniqueViolation && String((err as { constraint?: string }).constraint ?? '').includes('custom_domain')) {
    return bodyRefused([{ field: 'branding.custom_domain', message: 'Another tenant already uses this domain.' }]);
  }
  return err;
}
