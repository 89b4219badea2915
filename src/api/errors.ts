import type { Queryable } from '../db/database.ts';

/** Domain errors. They are thrown anywhere and turned into HTTP responses in one place (server/error-handler). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown>,
  ) {
    super(typeof body.detail === 'string' ? body.detail : JSON.stringify(body));
  }
}

/**
 * A refusal with a record that must outlive the rollback of the request's transaction (a quota
 * decision): the error handler stores it in a transaction of its own before answering.
 */
export class RecordedRefusal extends ApiError {
  constructor(status: number, body: Record<string, unknown>, readonly record: (q: Queryable) => Promise<void>) {
    super(status, body);
  }
}

export type FieldErrors = Record<string, string[]>;

/** 400 with AWX's shape: {field: ["message"]} or {__all__: ["message"]}. */
export class ValidationError extends ApiError {
  constructor(readonly errors: FieldErrors) {
    super(400, errors);
  }

  static field(field: string, message: string): ValidationError {
    return new ValidationError({ [field]: [message] });
  }
}

const detail = (status: number) => (message: string, extra: Record<string, unknown> = {}) =>
  new ApiError(status, { detail: message, ...extra });

export const badRequest = detail(400);
export const notAuthenticated = () => new ApiError(401, { detail: 'Authentication credentials were not provided.' });
export const forbidden = (message = 'You do not have permission to perform this action.') => new ApiError(403, { detail: message });
export const notFound = (message = 'Not found.') => new ApiError(404, { detail: message });

/**
 * A named URL that names nothing: 404 without the Allow header, as AWX answers it (so a name's
 * answer says nothing an unknown path would not).
 */
export class UnknownNamedUrl extends ApiError {
  constructor() {
    super(404, { detail: 'Not found.' });
  }
}
export const methodNotAllowed = (method: string) => new ApiError(405, { detail: `Method "${method}" not allowed.` });
export const conflict = detail(409);
export const unsupportedMediaType = (type: string) => new ApiError(415, { detail: `Unsupported media type "${type}" in request.` });
