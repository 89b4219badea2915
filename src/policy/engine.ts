/**
 * The OPA-compatible policy engine, over the three calls of its REST API Drover uses: upload a
 * policy (PUT /v1/policies/svc_<id>, the Rego text), remove it (DELETE, same path) and evaluate a
 * package (POST /v1/data/<package path> with {input}). Its address is an administrator's setting
 * (a sidecar on localhost by default), so the user-URL address guard does not apply; every call is
 * still bounded in time and answer size.
 */
import type { Settings } from '../config/settings/store.ts';
import { OPERATOR_CONFIGURED, OutboundFailed, OutboundRefused, sendOutbound, type OutboundResponse } from '../net/outbound.ts';

export interface Engine {
  url: string;
  timeoutMs: number;
}

/** The engine the settings in force name. */
export const engineOf = (settings: Pick<Settings, 'get'>): Engine => ({
  url: String(settings.get('OPA_SERVER_URL')).replace(/\/+$/, ''),
  timeoutMs: Number(settings.get('OPA_EVALUATION_TIMEOUT_MS')),
});

/** The engine could not be reached, did not answer in time, or answered with an error. */
export class EngineError extends Error {}

/** The engine's id of a policy. */
export const enginePolicyId = (policyId: number) => `svc_${policyId}`;

const MAX_ANSWER_BYTES = 1024 * 1024;
const MAX_MESSAGE = 500;

async function call(engine: Engine, method: string, path: string, body?: string, contentType = 'application/json'): Promise<OutboundResponse> {
  let response: OutboundResponse;
  try {
    response = await sendOutbound({
      url: `${engine.url}${path}`, method, body, headers: { 'content-type': contentType, accept: 'application/json' },
      timeoutMs: engine.timeoutMs, maxResponseBytes: MAX_ANSWER_BYTES, maxRedirects: 0,
    }, OPERATOR_CONFIGURED);
  } catch (err) {
    if (err instanceof OutboundFailed || err instanceof OutboundRefused) throw new EngineError(err.message);
    throw err;
  }
  if (response.status >= 200 && response.status < 300) return response;
  throw new EngineError(`The policy engine answered ${response.status}${engineMessage(response.body)}.`);
}

/** OPA explains a refusal (a Rego compile error) in {message}. */
function engineMessage(body: string): string {
  try {
    const message = (JSON.parse(body) as { message?: unknown }).message;
    return typeof message === 'string' && message ? `: ${message.slice(0, MAX_MESSAGE)}` : '';
  } catch {
    return '';
  }
}

export async function uploadPolicy(engine: Engine, policyId: number, rego: string): Promise<void> {
  await call(engine, 'PUT', `/v1/policies/${enginePolicyId(policyId)}`, rego, 'text/plain');
}

/** Removes a policy; one the engine does not know is as good as removed. */
export async function removePolicy(engine: Engine, policyId: number): Promise<void> {
  try {
    await call(engine, 'DELETE', `/v1/policies/${enginePolicyId(policyId)}`);
  } catch (err) {
    if (err instanceof EngineError && /answered 404/.test(err.message)) return;
    throw err;
  }
}

/** The engine's data path of a package: `drover.launch` and `drover/launch` are both /v1/data/drover/launch. */
export const dataPath = (packagePath: string) => packagePath.replace(/\./g, '/');

/** Evaluates a package over `input`: answers the engine's `result`, undefined when it has none. */
export async function evaluate(engine: Engine, packagePath: string, input: unknown): Promise<unknown> {
  const response = await call(engine, 'POST', `/v1/data/${dataPath(packagePath)}`, JSON.stringify({ input }));
  let answer: unknown;
  try {
    answer = JSON.parse(response.body);
  } catch {
    throw new EngineError('The policy engine answered something other than JSON.');
  }
  return answer && typeof answer === 'object' && !Array.isArray(answer) ? (answer as { result?: unknown }).result : undefined;
}
