/** api_endpoint: a JSON list from an HTTP endpoint, through the guard every request to a user's URL passes. */
import type { RequestContext } from '../../../api/context.ts';
import { OutboundFailed, OutboundRefused, outboundPolicy, sendOutbound } from '../../../net/outbound.ts';
import { SourceError, toChoices } from './choices.ts';
import { clearHeaders } from './header-secrets.ts';
import { DEFAULT_TIMEOUT, pathSegments } from './source-spec.ts';

const MAX_RESPONSE_BYTES = 1024 * 1024;

/** What a dot path leads to in a JSON document (undefined when it leads nowhere). */
function at(value: unknown, segments: readonly string[]): unknown {
  let current = value;
  for (const segment of segments) {
    if (current === null || typeof current !== 'object' || !Object.hasOwn(current, segment)) return undefined;
    current = (current as Record<string, unknown>)[segment];
  }
  return current;
}

export async function endpointChoices(ctx: RequestContext, variable: string, d: Record<string, unknown>): Promise<string[]> {
  const method = typeof d.method === 'string' ? d.method.toUpperCase() : 'GET';
  const headers: Record<string, string> = { accept: 'application/json', ...clearHeaders(variable, d.headers as Record<string, string> | undefined) };
  let body: string | undefined;
  if (method === 'POST') {
    body = JSON.stringify(d.body ?? {});
    if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
  }
  let response;
  try {
    response = await sendOutbound(
      { url: d.url as string, method, headers, body, timeoutMs: ((d.timeout as number | undefined) ?? DEFAULT_TIMEOUT) * 1000, maxResponseBytes: MAX_RESPONSE_BYTES },
      outboundPolicy(ctx.service.settings),
    );
  } catch (err) {
    if (err instanceof OutboundRefused || err instanceof OutboundFailed) throw new SourceError(err.message);
    throw err;
  }
  if (response.status < 200 || response.status > 299) throw new SourceError(`The endpoint answered HTTP ${response.status}.`);
  let document: unknown;
  try {
    document = JSON.parse(response.body);
  } catch {
    throw new SourceError('The endpoint did not answer JSON.');
  }
  const list = at(document, pathSegments(d.json_path));
  if (!Array.isArray(list)) {
    throw new SourceError(d.json_path ? `json_path '${d.json_path}' does not lead to a list in the answer.` : 'The answer is not a list (set json_path to the list in it).');
  }
  const field = pathSegments(d.value_field);
  return toChoices(field.length ? list.map((item) => at(item, field)) : list);
}
