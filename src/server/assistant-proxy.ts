/**
 * /assistant/... served by the assistant service: /assistant/api/v1/chat is its /api/v1/chat.
 * Requests pass through the main service's hooks first (a session's writes meet its CSRF check,
 * credentials its throttling), then go on with their Authorization and Cookie headers; answers come
 * back as they stream (the chat's events arrive one by one). Paths that would leave the prefix
 * (../, their encoded forms) are refused with 400. When the assistant is not there: 503, or 502
 * when it answers badly, with a JSON message.
 */
import proxy from '@fastify/http-proxy';
import type { FastifyInstance, FastifyReply, RawServerBase, RouteGenericInterface } from 'fastify';
import type { Services } from '../api/context.ts';
import { ApiError } from '../api/errors.ts';
import { PUBLIC } from '../api/permissions.ts';

export const ASSISTANT_PREFIX = '/assistant';

const unavailable = (detail: string) => new ApiError(503, { detail });

/** reply-from's errors (connection refused, reset, timeout...) as the main service answers errors. */
function proxyError(reply: FastifyReply<RouteGenericInterface, RawServerBase>, { error }: { error: Error & { statusCode?: number; code?: string } }): void {
  reply.request.log.warn({ code: error.code }, 'the assistant service did not answer');
  const refused = (error.cause as { code?: string } | undefined)?.code === 'ECONNREFUSED' || error.statusCode === 503;
  const failure = refused
    ? unavailable('The assistant service is not running or not reachable.')
    : error.statusCode === 504
      ? new ApiError(504, { detail: 'The assistant service did not answer in time.' })
      : new ApiError(502, { detail: 'The assistant service did not answer properly.' });
  reply.code(failure.status).send(failure.body);
}

export async function registerAssistantProxy(app: FastifyInstance, services: Services): Promise<void> {
  const target = () => services.env.assistant.url;
  // Bodies go on as they came (the proxy reads them as streams): the service's own parsers stay outside.
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    await scope.register(proxy, {
    prefix: ASSISTANT_PREFIX,
    // The address is read at each request: the child's changes when it starts again.
    upstream: '',
    config: { permission: PUBLIC },
    preHandler: async () => {
      if (!target()) throw unavailable('The assistant service is not running (it is starting, or SVC_ASSISTANT_ENABLED is false and SVC_ASSISTANT_URL is unset).');
    },
    replyOptions: {
      getUpstream: () => target() ?? '',
      onError: proxyError,
      // Hop-by-hop: the assistant's connection to this service is not the caller's (Connection: close must still close).
      rewriteHeaders: (headers) => {
        const { connection: _connection, 'keep-alive': _keepAlive, ...rest } = headers;
        return rest;
      },
      rewriteRequestHeaders: (request, headers) => ({
        ...headers,
        // The assistant believes its loopback proxy: the caller's address reaches the main service's throttling again.
        'x-forwarded-for': request.ip,
        'x-forwarded-prefix': ASSISTANT_PREFIX,
      }),
    },
    httpMethods: ['GET', 'HEAD', 'POST', 'OPTIONS'],
    });
  });
}
