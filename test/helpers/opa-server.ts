/**
 * An OPA-compatible policy engine on 127.0.0.1 for tests: the three calls Drover makes (PUT and
 * DELETE /v1/policies/<id>, POST /v1/data/<path>), with programmed answers per data path: a
 * result, no result, an error status, or no answer at all (a hang past the caller's timeout).
 * Uploads and removals are logged, can be refused, and can be held unanswered.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startPolicyEngineSync } from '../../src/policy/engine-sync.ts';
import type { TestApp } from './app.ts';
import { eventually } from './jobs.ts';

export type DataAnswer = { result: unknown } | { noResult: true } | { status: number } | { hang: true };

export interface OpaServer {
  url: string;
  /** Uploaded Rego by engine policy id (svc_<id>). */
  policies: Map<string, string>;
  /** Every evaluation: the data path and the input it got. */
  evaluations: { path: string; input: any }[];
  /** What POST /v1/data/<path> answers from now on (default: no result). */
  answer(path: string, answer: DataAnswer): void;
  /** The status policy uploads answer (null: accept them). */
  refuseUploads(status: number | null): void;
  /** Every PUT and DELETE of a policy, in the order they arrived, as "PUT svc_<id>". */
  changes: string[];
  /** Holds every policy PUT and DELETE unanswered (and unapplied) until the returned function is called. */
  holdChanges(): () => void;
  /** Resolves once a change ("PUT svc_<id>") has arrived. */
  changeArrived(change: string): Promise<void>;
  close(): Promise<void>;
}

export async function startOpaServer(): Promise<OpaServer> {
  const policies = new Map<string, string>();
  const evaluations: OpaServer['evaluations'] = [];
  const answers = new Map<string, DataAnswer>();
  let uploadStatus: number | null = null;
  const changes: string[] = [];
  let held: Promise<void> | null = null;
  const arrivals = new Map<string, Array<() => void>>();
  const arrived = (change: string) => {
    changes.push(change);
    for (const resolve of arrivals.get(change) ?? []) resolve();
    arrivals.delete(change);
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const url = req.url ?? '';
      const json = (status: number, value: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
      const policy = /^\/v1\/policies\/([^/?]+)$/.exec(url);
      if (policy && (req.method === 'PUT' || req.method === 'DELETE')) {
        arrived(`${req.method} ${policy[1]}`);
        if (held) return void held.then(() => answerChange(req.method!, policy[1], body, json));
        return answerChange(req.method!, policy[1], body, json);
      }
      const data = /^\/v1\/data\/(.+)$/.exec(url);
      if (data && req.method === 'POST') {
        evaluations.push({ path: data[1], input: JSON.parse(body).input });
        const answer = answers.get(data[1]) ?? { noResult: true };
        if ('hang' in answer) return;
        if ('status' in answer) return json(answer.status, { code: 'internal_error', message: 'boom' });
        return json(200, 'noResult' in answer ? {} : { result: answer.result });
      }
      json(404, { code: 'not_found' });
    });
  });
  const answerChange = (method: string, id: string, body: string, json: (status: number, value: unknown) => void) => {
    if (method === 'PUT') {
      if (uploadStatus) return json(uploadStatus, { code: 'invalid_parameter', message: 'rego_parse_error: unexpected token' });
      policies.set(id, body);
      return json(200, {});
    }
    if (!policies.delete(id)) return json(404, { code: 'resource_not_found', message: 'storage_not_found_error' });
    return json(200, {});
  };
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    policies,
    evaluations,
    answer: (path, answer) => answers.set(path, answer),
    refuseUploads: (status) => (uploadStatus = status),
    changes,
    holdChanges: () => {
      let release!: () => void;
      held = new Promise((resolve) => (release = resolve));
      return () => {
        held = null;
        release();
      };
    },
    changeArrived: (change) => (changes.includes(change) ? Promise.resolve() : new Promise((resolve) => arrivals.set(change, [...(arrivals.get(change) ?? []), resolve]))),
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

/** An address on 127.0.0.1 where nothing listens (connections are refused). */
export async function refusingUrl(): Promise<string> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}`;
}

/**
 * Runs the policy engine sync loop beside an app built without its loops (`dispatcher: false`),
 * retrying soon after a failure; answers how to stop it (before the app closes).
 */
export async function startPolicySync(t: TestApp, retryDelaysMs: readonly number[] = [100]): Promise<() => Promise<void>> {
  const sync = await startPolicyEngineSync(t.services, { retryDelaysMs });
  return () => sync.stop();
}

/** Waits until the policy's sync_state is `state` (as the API shows it); answers the policy. */
export function policyInState(t: TestApp, id: number, state: 'pending' | 'synced' | 'failed'): Promise<any> {
  return eventually(async () => {
    const res = await t.get(`/api/v2/policies/${id}/`);
    return res.body?.sync_state === state ? res.body : null;
  }, 30_000, `policy ${id} ${state}`);
}
