/** Deliveries as each webhook service sends them, signed with a template's key. */
import { createHmac, randomUUID } from 'node:crypto';
import type { Response, TestApp } from './app.ts';

export type Service = 'github' | 'gitlab' | 'bitbucket_dc' | 'gitea' | 'azure_devops';

export const hmacHex = (algorithm: 'sha1' | 'sha256', key: string, body: string) => createHmac(algorithm, key).update(body).digest('hex');

/** A push of `sha` to main, as each service words it. */
export function pushPayload(service: Service, sha: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  switch (service) {
    case 'github':
      return { ref: 'refs/heads/main', after: sha, repository: { full_name: 'o/r', statuses_url: 'https://api.github.example/repos/o/r/statuses/{sha}' }, ...extra };
    case 'gitlab':
      return { object_kind: 'push', checkout_sha: sha, project: { id: 42, web_url: 'https://gitlab.example/o/r' }, ...extra };
    case 'bitbucket_dc':
      return { eventKey: 'repo:refs_changed', changes: [{ toHash: sha }], repository: { links: { self: [{ href: 'https://bitbucket.example/projects/O/repos/r/browse' }] } }, ...extra };
    case 'gitea':
      return { ref: 'refs/heads/main', after: sha, repository: { full_name: 'o/r', html_url: 'https://gitea.example/o/r' }, ...extra };
    case 'azure_devops':
      return {
        id: randomUUID(), eventType: 'git.push',
        resource: { refUpdates: [{ newObjectId: sha }], repository: { url: 'https://dev.azure.example/org/proj/_apis/git/repositories/abc-123' } },
        ...extra,
      };
  }
}

/** The event name and headers of a push delivery of `service` with `guid`, signed over `body` with `key`. */
export function pushHeaders(service: Service, key: string, body: string, guid: string): Record<string, string> {
  const json = { 'content-type': 'application/json' };
  switch (service) {
    case 'github':
      return { ...json, 'x-github-event': 'push', 'x-github-delivery': guid, 'x-hub-signature-256': `sha256=${hmacHex('sha256', key, body)}` };
    case 'gitlab':
      return { ...json, 'x-gitlab-event': 'Push Hook', 'x-gitlab-event-uuid': guid, 'x-gitlab-token': key };
    case 'bitbucket_dc':
      return { ...json, 'x-event-key': 'repo:refs_changed', 'x-request-id': guid, 'x-hub-signature': `sha256=${hmacHex('sha256', key, body)}` };
    case 'gitea':
      return { ...json, 'x-gitea-event': 'push', 'x-gitea-delivery': guid, 'x-gitea-signature': hmacHex('sha256', key, body) };
    case 'azure_devops':
      return { ...json, authorization: `Basic ${Buffer.from(`azure:${key}`).toString('base64')}` };
  }
}

/** Sends a raw delivery to a template's receiver, as nobody (the key is the authentication). */
export function deliver(t: TestApp, templateId: number, service: string, body: string, headers: Record<string, string>): Promise<Response> {
  return t.request('POST', `/api/v2/job_templates/${templateId}/${service}/`, { as: null, payload: body, headers });
}
