// The load generator of bench/eda.ts, in a worker thread of its own so that making and signing requests
// does not share the service's event loop: CONCURRENCY clients on keep-alive connections each post signed
// ~1 KB events one after another for `seconds`, and the latencies of the answers are sent back. The
// client is undici's (a connection pool, no pipelining): it costs a fraction of node:http's per request,
// which leaves the machine's two cores to what is measured.
import { createHmac, randomUUID } from 'node:crypto';
import { parentPort, workerData } from 'node:worker_threads';
import { Pool } from 'undici';

const { port, paths, key, concurrency, seconds, matchEvery, expect, sign } = workerData;
const filler = 'x'.repeat(760);

function event(n) {
  const critical = n % matchEvery === 0;
  return JSON.stringify({
    event_id: randomUUID(), type: 'alert', severity: critical ? 'critical' : 'warning', service: `svc-${n % 50}`, region: 'eu-west-1',
    labels: { team: 'ops', tier: 'web', env: 'prod', k3: 'v3', k4: 'v4' }, count: 5 + (n % 7), host: `web-${n % 200}.example`, summary: filler,
  });
}

const pool = new Pool(`http://127.0.0.1:${port}`, { connections: concurrency, pipelining: 1 });
const latencies = [];
let errors = 0;
let sent = 0;
const post = async (path, body, headers) => {
  try {
    const res = await pool.request({ method: 'POST', path, body, headers: { 'content-type': 'application/json', ...headers } });
    await res.body.dump();
    return res.statusCode;
  } catch {
    return 0;
  }
};

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
await pool.close();
parentPort.postMessage({ latencies, errors, seconds: (performance.now() - started) / 1000, bodyBytes: Buffer.byteLength(event(0)) });
