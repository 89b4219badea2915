import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { ExecOptions, ExecResult } from './run-kind.ts';

const KILL_GRACE_MS = 5_000;
const CENSORED = '$encrypted$';
const MAX_KEPT_ERROR_LINES = 2_000;

/** Replaces every secret value in a line of output. */
export function scrub(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (secret.length >= 3) out = out.split(secret).join(CENSORED);
  return out;
}

/** The environment runs start from: the service's own minus what concerns only the service. */
export function baseEnvironment(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value === undefined || /^(SVC_|POSTGRES_|PG|NODE_OPTIONS$|npm_)/.test(name)) continue;
    env[name] = value;
  }
  return { ...env, ...extra };
}

/**
 * Runs one process, streaming its output lines to `show` with secrets scrubbed. An abort of
 * `signal` stops it: SIGTERM to its process group, SIGKILL after a grace period.
 */
export function execProcess(
  command: string,
  args: string[],
  options: ExecOptions,
  signal: AbortSignal,
  show: (line: string) => Promise<void>,
): Promise<ExecResult> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return resolve({ code: null, stdout: '', stderr: '' });
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env ?? baseEnvironment(),
      detached: true,
      stdio: [options.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    if (child.pid) options.onSpawn?.(child.pid);
    const secrets = options.secrets ?? [];
    const captured: string[] = [];
    const errors: string[] = [];
    let shown = Promise.resolve();
    const follow = (stream: NodeJS.ReadableStream, capture: boolean, isError = false) => {
      const lines = createInterface({ input: stream, crlfDelay: Infinity });
      lines.on('line', (line) => {
        if (isError && errors.length < MAX_KEPT_ERROR_LINES) errors.push(scrub(line, secrets));
        if (options.onLine) options.onLine(scrub(line, secrets), isError ? 'stderr' : 'stdout');
        else if (capture) captured.push(line);
        else shown = shown.then(() => show(scrub(line, secrets)));
      });
      return new Promise<void>((done) => lines.once('close', () => done()));
    };
    const streams = Promise.all([follow(child.stdout!, options.captureStdout === true), follow(child.stderr!, false, true)]);
    if (options.stdin !== undefined) child.stdin!.end(options.stdin);
    let killer: NodeJS.Timeout | null = null;
    const stop = () => {
      signalGroup(child.pid, 'SIGTERM');
      killer = setTimeout(() => signalGroup(child.pid, 'SIGKILL'), KILL_GRACE_MS);
      killer.unref();
    };
    signal.addEventListener('abort', stop, { once: true });
    child.once('error', (err) => {
      signal.removeEventListener('abort', stop);
      reject(err);
    });
    child.once('close', (code) => {
      signal.removeEventListener('abort', stop);
      if (killer) clearTimeout(killer);
      void streams.then(() => shown).then(() => resolve({ code, stdout: captured.join('\n'), stderr: errors.join('\n') }), reject);
    });
  });
}

function signalGroup(pid: number | undefined, sig: NodeJS.Signals): void {
  if (!pid) return;
  try {
    process.kill(-pid, sig);
  } catch {
    // Already gone.
  }
}
