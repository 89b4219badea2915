/** An HTTP server on 127.0.0.1 standing in for the target of outbound webhooks: it keeps each request's raw body. */
import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Delivered {
  path: string;
  headers: http.IncomingHttpHeaders;
  raw: Buffer;
  body: any;
}

export interface WebhookReceiver {
  base: string;
  received: Delivered[];
  /** The requests that reached `path`. */
  at(path: string): Delivered[];
  /** Statuses `path` answers, one per request in turn; 200 once they run out. */
  script(path: string, statuses: number[]): void;
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: Delivered[] = [];
  const scripts = new Map<string, number[]>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const path = req.url!.split('?')[0];
      let body: unknown = null;
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        // kept raw
      }
      received.push({ path, headers: req.headers, raw, body });
      const status = scripts.get(path)?.shift() ?? 200;
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : 'down');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    received,
    at: (path) => received.filter((r) => r.path === path),
    script: (path, statuses) => scripts.set(path, [...statuses]),
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

/** Whether X-Svc-Signature is sha256=<HMAC-SHA256 of the raw body keyed with `key`>, as a receiver checks it. */
export function signatureValid(delivered: Delivered, key: string): boolean {
  const header = String(delivered.headers['x-svc-signature'] ?? '');
  const expected = Buffer.from(`sha256=${createHmac('sha256', key).update(delivered.raw).digest('hex')}`);
  const given = Buffer.from(header);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
