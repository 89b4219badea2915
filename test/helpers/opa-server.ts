/**
 * An OPA-compatible policy engine on 127.0.0.1 for tests: the three calls Drover makes (PUT and
 * DELETE /v1/policies/<id>, POST /v1/data/<path>), with programmed answers per data path: a
 * result, no result, an error status, or no answer at all (a hang past the caller's timeout).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

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
  close(): Promise<void>;
}

export async function startOpaServer(): Promise<OpaServer> {
  const policies = new Map<string, string>();
  const evaluations: OpaServer['evaluations'] = [];
  const answers = new Map<string, DataAnswer>();
  let uploadStatus: number | null = null;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const url = req.url ?? '';
      const json = (status: number, value: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
      const policy = /^\/v1\/policies\/([^/?]+)$/.exec(url);
      if (policy && req.method === 'PUT') {
        if (uploadStatus) return json(uploadStatus, { code: 'invalid_parameter', message: 'rego_parse_error: unexpected token' });
        policies.set(policy[1], body);
        return json(200, {});
      }
      if (policy && req.method === 'DELETE') {
        if (!policies.delete(policy[1])) return json(404, { code: 'resource_not_found', message: 'storage_not_found_error' });
        return json(200, {});
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
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    policies,
    evaluations,
    answer: (path, answer) => answers.set(path, answer),
    refuseUploads: (status) => (uploadStatus = status),
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
