/**
 * GitHub: X-Hub-Signature-256 (sha256=<hex HMAC of the body>) or, from older senders,
 * X-Hub-Signature (sha1=...); the event in X-GitHub-Event, the delivery's id in X-GitHub-Delivery.
 * Pushes and pull requests launch; a ping (sent when the hook is made) is answered without one.
 */
import { commitInPath, header, hmacMatches, refAt, STATUS_CONTEXT, type Delivery, type WebhookProvider } from './provider.ts';

const REF_PATHS: Record<string, string> = { push: 'after', pull_request: 'pull_request.head.sha' };

const STATES: Record<string, string> = { pending: 'pending', running: 'pending', successful: 'success', failed: 'failure', canceled: 'failure', error: 'error' };

function signatureMatches(delivery: Delivery, key: string): boolean {
  const sha256 = header(delivery, 'x-hub-signature-256');
  if (sha256) return sha256.startsWith('sha256=') && hmacMatches('sha256', key, delivery.raw, sha256.slice(7));
  const sha1 = header(delivery, 'x-hub-signature');
  return sha1.startsWith('sha1=') && hmacMatches('sha1', key, delivery.raw, sha1.slice(5));
}

/** A pull request's statuses_url; for a push, the repository's statuses_url template at the pushed commit. */
function statusApi(type: string, payload: Record<string, unknown>, ref: string | null): string | null {
  if (type === 'pull_request') {
    const url = (payload.pull_request as Record<string, unknown> | undefined)?.statuses_url;
    return typeof url === 'string' ? url : null;
  }
  const template = (payload.repository as Record<string, unknown> | undefined)?.statuses_url;
  const sha = commitInPath(ref);
  return typeof template === 'string' && sha ? template.replace('{sha}', sha) : null;
}

export const github: WebhookProvider = {
  service: 'github',
  label: 'GitHub',
  authentic: signatureMatches,
  read(delivery) {
    const type = header(delivery, 'x-github-event');
    if (!(type in REF_PATHS)) return { launch: false, reason: type === 'ping' ? 'ping' : `event ${type || '(none)'}` };
    const guid = header(delivery, 'x-github-delivery');
    const ref = refAt(delivery.payload, REF_PATHS[type]);
    return { launch: true, type, guid, ref, statusApi: statusApi(type, delivery.payload, ref) };
  },
  statusRequest: (token, state, targetUrl) => ({
    headers: { Authorization: `token ${token}`, Accept: 'application/vnd.github+json' },
    body: { state: STATES[state], context: STATUS_CONTEXT, target_url: targetUrl },
  }),
};
