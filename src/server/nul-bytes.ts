import { Readable } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import { ApiError, ValidationError } from '../api/errors.ts';
import { containsNul } from '../db/nul.ts';

/** As Django REST framework words it (ProhibitNullCharactersValidator). */
export const NUL_MESSAGE = 'Null characters are not allowed.';

const refuse = (where: string) => new ApiError(400, { detail: `Null characters are not allowed in the ${where}.` });

/** The text of HTTP Basic credentials (user:password), or null for another scheme. */
function basicCredentials(authorization: string | undefined): string | null {
  const match = /^basic\s+(\S*)/i.exec(authorization ?? '');
  return match ? Buffer.from(match[1], 'base64').toString('utf8') : null;
}

/**
 * Refuses a request carrying a NUL character anywhere the service would read it: the URL (path
 * segments, named URLs, query keys and values, as %00 or raw), a header or cookie, the
 * credentials of a Basic Authorization header, or a parsed body (JSON strings and keys, forms).
 * PostgreSQL text cannot hold one, so without this check the request would fail as a server
 * error wherever the value first reached the database. Runs before authentication.
 */
export function refuseNulBytes(request: FastifyRequest): void {
  if (/%00|\0/i.test(request.raw.url ?? '')) throw refuse('URL');
  for (const value of Object.values(request.headers)) if (containsNul(value)) throw refuse('request headers');
  if (containsNul(basicCredentials(request.headers.authorization)) || containsNul(request.cookies ?? {})) throw refuse('credentials');
  const body = request.body;
  // A body passed on unread (to the assistant service, which checks its own) is not parsed here.
  if (body instanceof Readable || !containsNul(body)) return;
  // A field whose value holds one answers as a field error, as AWX does for its text fields.
  if (body && typeof body === 'object' && !Array.isArray(body) && !Object.keys(body).some((key) => key.includes('\0'))) {
    const fields = Object.entries(body).filter(([, value]) => containsNul(value));
    throw new ValidationError(Object.fromEntries(fields.map(([name]) => [name, [NUL_MESSAGE]])));
  }
  throw refuse('request body');
}
