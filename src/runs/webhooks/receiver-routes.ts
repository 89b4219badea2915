/**
 * POST /<templates>/{id}/<service>/: a webhook service's delivery launches the template. The
 * key authenticates the sender (a signature over the body's bytes, or the key itself), so these
 * routes read no login cookie or token, are exempt from CSRF, and read the body as raw bytes.
 */
import { createHash } from 'node:crypto';
import { systemContextIn } from '../../api/context.ts';
import { ApiError, forbidden, notFound } from '../../api/errors.ts';
import { viewOptions } from '../../api/options.ts';
import { PUBLIC } from '../../api/permissions.ts';
import type { Resource } from '../../api/resource.ts';
import { routeMethods } from '../../api/resource-routes.ts';
import { ident } from '../../api/sql.ts';
import type { Row } from '../../db/database.ts';
import { jsonTextTooDeep, TOO_DEEP } from '../../db/json-depth.ts';
import { replaceNulDeep } from '../../db/nul.ts';
import { webhookKeyOf } from '../../resources/webhooks/webhook-fields.ts';
import { launchOrRefuse, type Launcher } from '../launch.ts';
import { launchingOnce, webhookExtraVars, type WebhookLaunch } from './delivery-launch.ts';
import type { Delivery, WebhookProvider } from './provider.ts';
import { WEBHOOK_PROVIDERS } from './providers.ts';
import type { RunRouteModule } from '../run-services.ts';

/** The largest delivery accepted (413 beyond). */
export const MAX_DELIVERY_BYTES = 1024 * 1024;
const MAX_GUID = 128;

/** The body's bytes, kept out of sight of checks that walk a parsed body's properties. */
export class RawBody {
  readonly #bytes: Buffer;
  constructor(bytes: Buffer) {
    this.#bytes = bytes;
  }
  get bytes() {
    return this.#bytes;
  }
}

/** The payload: the JSON body, or GitHub's form encoding (payload=<JSON>); 400 when it is neither. */
export function parsePayload(raw: Buffer, contentType: string): Record<string, unknown> {
  let text = raw.toString('utf8');
  if (/^application\/x-www-form-urlencoded\b/i.test(contentType)) text = new URLSearchParams(text).get('payload') ?? '';
  if (jsonTextTooDeep(text)) throw new ApiError(400, { detail: TOO_DEEP });
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ApiError(400, { detail: 'The webhook payload is not JSON.' });
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new ApiError(400, { detail: 'The webhook payload is not a JSON object.' });
  // JSON can hold a NUL only written as \u0000: without one in the text, there is nothing to replace.
  return text.includes('\\u0000') ? replaceNulDeep(value as Record<string, unknown>) : (value as Record<string, unknown>);
}

/** A delivery id fit for storage: the provider's, else the body's digest (as AWX does for GitLab). */
function storedGuid(guid: string, raw: Buffer): string {
  if (!guid) return createHash('sha1').update(raw).digest('hex');
  return guid.length > MAX_GUID ? createHash('sha256').update(guid).digest('hex') : guid;
}

/** The receivers of every provider for one template resource, launching with the kind's `launcher`. */
export const webhookReceiverRoutes = <T extends Row>(templates: Resource, launcher: Launcher<WebhookLaunch, T>): RunRouteModule => async (app, services) => {
  const { db } = services;
  const once = launchingOnce(templates.table, launcher);

  async function receive(provider: WebhookProvider, id: string, delivery: Delivery) {
    const [template] = /^\d{1,9}$/.test(id)
      ? await db.query<T>(`SELECT * FROM ${ident(templates.table)} WHERE id = $1 AND webhook_service = $2 AND webhook_key <> ''`, [Number(id), provider.service])
      : [];
    if (!template) throw notFound();
    if (!provider.authentic(delivery, webhookKeyOf(template))) {
      if (provider.unsignedPing?.(delivery)) return { status: 200, body: { message: 'Webhook ignored' } };
      throw forbidden();
    }
    delivery.payload = parsePayload(delivery.raw, String(delivery.headers['content-type'] ?? ''));
    const reading = provider.read(delivery);
    if (!reading.launch) return { status: 200, body: { message: 'Webhook ignored' } };
    const guid = storedGuid(reading.guid, delivery.raw);
    const input: WebhookLaunch = {
      service: provider.service,
      guid,
      extraVars: webhookExtraVars({ ...reading, guid }, delivery.payload),
      columns: { webhook_service: provider.service, webhook_credential_id: template.webhook_credential_id ?? null, webhook_guid: guid },
    };
    return { status: 202, body: { message: 'Job queued.', job: (await launchOrRefuse(services.launches, systemContextIn(services), once, template, input)).run.id } };
  }

  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: MAX_DELIVERY_BYTES }, (_request, body, done) => done(null, new RawBody(body as Buffer)));
    // The key is the authentication: a login cookie or token the sender might carry is not read.
    scope.addHook('onRoute', (route) => {
      route.config = { ...(route.config as object), ownAuthentication: true, csrfExempt: true } as typeof route.config;
    });
    for (const provider of WEBHOOK_PROVIDERS) {
      const url = `${templates.listPath}:id/${provider.service}/`;
      routeMethods(scope, url, PUBLIC, {
        POST: async (request, reply) => {
          const raw = request.body instanceof RawBody ? request.body.bytes : Buffer.alloc(0);
          const answer = await receive(provider, (request.params as { id: string }).id, { headers: request.headers, raw, payload: {} });
          return reply.code(answer.status).send(answer.body);
        },
        OPTIONS: async () => ({
          ...viewOptions(`${provider.label} Webhook Receiver`, `POST: a ${provider.label} delivery, authenticated by the template's webhook key, launches the template.`),
          parses: ['application/json', 'application/x-www-form-urlencoded'],
        }),
      }, { POST: { summary: `Receive a ${provider.label} webhook delivery` } });
    }
  });
};
