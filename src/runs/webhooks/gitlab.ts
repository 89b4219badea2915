/**
 * GitLab: X-Gitlab-Token carries the key itself (GitLab signs nothing); the event in
 * X-Gitlab-Event, the delivery's id in X-Gitlab-Event-UUID (older GitLab sends none: then the
 * SHA-1 of the body, as AWX). Push, tag push and merge request hooks launch.
 */
import { createHash } from 'node:crypto';
import { commitInPath, header, originOf, refAt, sameBytes, STATUS_CONTEXT, type WebhookProvider } from './provider.ts';

const REF_PATHS: Record<string, string> = { 'Push Hook': 'checkout_sha', 'Tag Push Hook': 'checkout_sha', 'Merge Request Hook': 'object_attributes.last_commit.id' };

const STATES: Record<string, string> = { pending: 'pending', running: 'running', successful: 'success', failed: 'failed', error: 'failed', canceled: 'canceled' };

export const gitlab: WebhookProvider = {
  service: 'gitlab',
  label: 'GitLab',
  authentic(delivery, key) {
    const given = header(delivery, 'x-gitlab-token');
    // Digests first, so that the comparison takes the same time whatever the length given.
    const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();
    return given !== '' && sameBytes(digest(key), digest(given));
  },
  read(delivery) {
    const type = header(delivery, 'x-gitlab-event');
    if (!(type in REF_PATHS)) return { launch: false, reason: `event ${type || '(none)'}` };
    const guid = header(delivery, 'x-gitlab-event-uuid') || createHash('sha1').update(delivery.raw).digest('hex');
    const ref = refAt(delivery.payload, REF_PATHS[type]);
    const project = (delivery.payload.project ?? {}) as Record<string, unknown>;
    const origin = originOf(project.web_url);
    const sha = commitInPath(ref);
    const projectId = typeof project.id === 'number' ? project.id : null;
    const statusApi = origin && sha && projectId !== null ? `${origin}/api/v4/projects/${projectId}/statuses/${sha}` : null;
    return { launch: true, type, guid, ref, statusApi };
  },
  statusRequest: (token, state, targetUrl) => ({
    headers: { 'PRIVATE-TOKEN': token },
    body: { state: STATES[state], name: STATUS_CONTEXT, context: STATUS_CONTEXT, target_url: targetUrl },
  }),
};
