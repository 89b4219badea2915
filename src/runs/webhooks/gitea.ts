/**
 * Gitea (and Forgejo): X-Gitea-Signature, the hex HMAC-SHA256 of the body (no prefix); the event
 * in X-Gitea-Event, the delivery's id in X-Gitea-Delivery. Pushes and pull requests launch.
 * Statuses go to /api/v1/repos/{owner}/{repo}/statuses/{sha} on the repository's host.
 */
import { commitInPath, header, hmacMatches, originOf, pathValue, refAt, STATUS_CONTEXT, type WebhookProvider } from './provider.ts';

const REF_PATHS: Record<string, string> = { push: 'after', pull_request: 'pull_request.head.sha' };

const STATES: Record<string, string> = { pending: 'pending', running: 'pending', successful: 'success', failed: 'failure', canceled: 'failure', error: 'error' };

const REPOSITORY_NAME = /^[\w.-]+\/[\w.-]+$/;

export const gitea: WebhookProvider = {
  service: 'gitea',
  label: 'Gitea',
  authentic: (delivery, key) => hmacMatches('sha256', key, delivery.raw, header(delivery, 'x-gitea-signature')),
  read(delivery) {
    const type = header(delivery, 'x-gitea-event');
    if (!(type in REF_PATHS)) return { launch: false, reason: `event ${type || '(none)'}` };
    const guid = header(delivery, 'x-gitea-delivery');
    const ref = refAt(delivery.payload, REF_PATHS[type]);
    const origin = originOf(pathValue(delivery.payload, 'repository.html_url'));
    const name = pathValue(delivery.payload, 'repository.full_name');
    const sha = commitInPath(ref);
    const statusApi = origin && sha && typeof name === 'string' && REPOSITORY_NAME.test(name) ? `${origin}/api/v1/repos/${name}/statuses/${sha}` : null;
    return { launch: true, type, guid, ref, statusApi };
  },
  statusRequest: (token, state, targetUrl) => ({
    headers: { Authorization: `token ${token}` },
    body: { state: STATES[state], context: STATUS_CONTEXT, target_url: targetUrl },
  }),
};
