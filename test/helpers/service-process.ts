import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../..');

export interface ServiceProcess {
  child: ChildProcess;
  /** http://127.0.0.1:<port> */
  url: string;
  /** What the service printed, stdout and stderr. */
  output: string[];
  /** Sends a request with Basic credentials; answers the status and the body (parsed when JSON). */
  api(method: string, url: string, body?: unknown): Promise<{ status: number; body: any; text: string }>;
  /** Stops the service with SIGTERM and waits for it to exit. */
  stop(): Promise<void>;
}

/**
 * Starts the real service (`node --import tsx src/main.ts`) as a child process with `values` as
 * its only SVC_ and POSTGRES_ variables (see standaloneValues), resolving once it listens on
 * HTTP. Give it NGINX_HTTP_PORT=0, NGINX_HTTPS_PORT=0 and SVC_LISTEN_ADDRESS=127.0.0.1. The
 * assistant service is not started unless `values` say SVC_ASSISTANT_ENABLED=true.
 */
export function spawnService(values: Record<string, string>, admin: { username: string; password: string }): Promise<ServiceProcess> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) if (value !== undefined && !/^(POSTGRES_|SVC_|NODE_TEST)/.test(name)) env[name] = value;
  Object.assign(env, { SVC_ASSISTANT_ENABLED: 'false' }, values);
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const output: string[] = [];
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const authorization = `Basic ${Buffer.from(`${admin.username}:${admin.password}`).toString('base64')}`;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the service did not start:\n${output.join('')}`)), 90_000);
    const onExit = (code: number | null, signal: string | null) => {
      clearTimeout(timer);
      reject(new Error(`the service exited (${code ?? signal}) before listening:\n${output.join('')}`));
    };
    child.once('exit', onExit);
    child.stderr!.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    let started = false;
    child.stdout!.on('data', (chunk: Buffer) => {
      output.push(chunk.toString());
      const listening = started ? null : output.join('').match(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
      if (!listening) return;
      started = true;
      clearTimeout(timer);
      child.off('exit', onExit);
      const url = listening[1];
      resolve({
        child,
        url,
        output,
        async api(method, target, body) {
          const res = await fetch(`${url}${target}`, {
            method,
            headers: { authorization, ...(body !== undefined && { 'content-type': 'application/json' }) },
            body: body === undefined ? undefined : JSON.stringify(body),
          });
          const text = await res.text();
          let parsed: unknown = text;
          try {
            parsed = JSON.parse(text);
          } catch {
            // not JSON: keep the text
          }
          return { status: res.status, body: parsed, text };
        },
        async stop() {
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
          await exited;
        },
      });
    });
  });
}
