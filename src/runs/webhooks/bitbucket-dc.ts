/**
 * Bitbucket Data Center: X-Hub-Signature (sha256=<hex HMAC of the body>); the event in
 * X-Event-Key, the delivery's id in X-Request-Id. Ref changes, mirror syncs and pull request
 * openings and updates launch. Its test connection (diagnostics:ping) comes unsigned and is
 * answered without a launch, as AWX.
 */
import { commitInPath, header, hmacMatches, originOf, pathValue, refAt, STATUS_CONTEXT, type WebhookProvider } from './provider.ts';

// The pull request's own commit (fromRef): its build status is what the pull request shows.
const PR_REF = 'pullRequest.fromRef.latestCommit';
const REF_PATHS: Record<string, string> = {
  'repo:refs_changed': 'changes.0.toHash',
  'mirror:repo_synchronized': 'changes.0.toHash',
  'pr:opened': PR_REF,
  'pr:from_ref_updated': PR_REF,
  'pr:modified': PR_REF,
};

const STATES: Record<string, string> = { pending: 'INPROGRESS', running: 'INPROGRESS', successful: 'SUCCESSFUL', failed: 'FAILED', error: 'FAILED', canceled: 'FAILED' };

export const bitbucketDc: WebhookProvider = {
  service: 'bitbucket_dc',
  label: 'Bitbucket Data Center',
  authentic(delivery, key) {
    const given = header(delivery, 'x-hub-signature');
    return given.startsWith('sha256=') && hmacMatches('sha256', key, delivery.raw, given.slice(7));
  },
  unsignedPing: (delivery) => header(delivery, 'x-event-key') === 'diagnostics:ping',
  read(delivery) {
    const type = header(delivery, 'x-event-key');
    if (!(type in REF_PATHS)) return { launch: false, reason: type === 'diagnostics:ping' ? 'ping' : `event ${type || '(none)'}` };
    const guid = header(delivery, 'x-request-id');
    const ref = refAt(delivery.payload, REF_PATHS[type]);
    const link = pathValue(delivery.payload, 'actor.links.self.0.href') ?? pathValue(delivery.payload, 'repository.links.self.0.href');
    const origin = originOf(link);
    const sha = commitInPath(ref);
    return { launch: true, type, guid, ref, statusApi: origin && sha ? `${origin}/rest/build-status/1.0/commits/${sha}` : null };
  },
  statusRequest: (token, state, targetUrl) => ({
    headers: { Authorization: `Bearer ${token}` },
    body: { state: STATES[state], key: STATUS_CONTEXT, url: targetUrl },
  }),
};
