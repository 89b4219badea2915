// The load generator of bench/eda.ts, in a worker thread of its own so that making and signing requests
// does not share the service's event loop: CONCURRENCY clients on keep-alive connections each post signed
// ~1 KB events one after another for `seconds`, and the latencies of the answers are sent back.
import http from 'node:http';
import { createHmac, randomUUID } from 'node:crypto';
import { parentPort, workerData } from 'node:worker_threads';

const { port, paths, key, concurrency, seconds, matchEvery, expect, sign } = workerData;
const filler = 'x'.repeat(760);

function event(n) {
  const critical = n % matchEvery === 0;
  return JSON.stringify({
    event_id: randomUUID(), type: 'alert', severity: critical ? 'critical' : 'warning', service: `svc-${n % 50}`, region: 'eu-west-1',
    labels: { team: 'ops', tier: 'web', env: 'prod', k3: 'v3', k4: 'v4' }, count: 5 + (n % 7), host: `web-${n % 200}.example`, summary: filler,
  });
}

const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
const latencies = [];
let errors = 0;
let sent = 0;
const post = (path, body, headers) =>
  new Promise((resolve) => {
    const req = http.request({ host: '127.0.0.1', port, method: 'POST', path, agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers } }, (res) => {
      res.resume();
      res.once('end', () => resolve(res.statusCode ?? 0));
    });
    req.once('error', () => resolve(0));
    req.end(body);
  });

const started = performance.now();
const until = started + seconds * 1000;
await Promise.all(Array.from({ length: concurrency }, async (_, client) => {
  while (performance.now() < until) {
    const n = sent++;
    const body = event(n);
    const headers = sign ? { 'x-svc-signature': `sha256=${createHmac('sha256', key).update(body).digest('hex')}` } : {};
    const at = performance.now();
    const status = await post(paths[(client + n) % paths.length], body, headers);
    latencies.push(performance.now() - at);
    if (status !== expect) errors++;
  }
}));
agent.destroy();
parentPort.postMessage({ latencies, errors, seconds: (performance.now() - started) / 1000, bodyBytes: Buffer.byteLength(event(0)) });
