import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, RecordedRefusal, UnknownNamedUrl } from '../api/errors.ts';
import { PgError, pgErrorCode } from '../db/database.ts';
import { TooDeepError } from '../db/json-depth.ts';

/** The one place where errors become HTTP responses. Unexpected errors are logged and answered 500 without detail. */
export async function errorHandler(err: FastifyError | Error, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  if (err instanceof RecordedRefusal) {
    try {
      await request.server.services.db.transaction(err.record);
    } catch (recordErr) {
      request.log.error({ err: recordErr }, 'storing the record of a refusal failed');
    }
  }
  if (err instanceof UnknownNamedUrl) reply.removeHeader('Allow');
  if (err instanceof ApiError) return reply.code(err.status).send(err.body);
  if (err instanceof TooDeepError) return reply.code(400).send({ detail: err.message });
  const fastifyCode = (err as FastifyError).code;
  switch (fastifyCode) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return reply.code(415).send({ detail: `Unsupported media type "${request.headers['content-type'] ?? ''}" in request.` });
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return reply.code(413).send({ detail: 'Request body is too large.' });
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return reply.code(400).send({ detail: err.message });
  }
  const status = (err as FastifyError).statusCode;
  if (status && status >= 400 && status < 500) return reply.code(status).send({ detail: err.message });
  const code = pgErrorCode(err);
  if (code === PgError.invalidRegex) return reply.code(400).send({ detail: 'Invalid regular expression in filter.' });
  // Requests with NUL bytes are refused before they get here (nul-bytes.ts); this catches any other way one reaches the database.
  if (code === PgError.characterNotInRepertoire || code === PgError.untranslatableCharacter) {
    return reply.code(400).send({ detail: 'Null characters are not allowed.' });
  }
  if (code === PgError.invalidTextRepresentation || code === PgError.invalidDatetimeFormat || code === PgError.datetimeOverflow || code === PgError.numericOutOfRange) {
    return reply.code(400).send({ detail: 'Invalid value in request.' });
  }
  request.log.error({ err }, 'unhandled error');
  return reply.code(500).send({ detail: 'A server error has occurred.' });
}
