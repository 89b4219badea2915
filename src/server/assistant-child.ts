/**
 * The assistant service as a child of `drover serve`: the same entry started with `assistant`,
 * told where the main service answers, proxied under /assistant/ once it says it listens, started
 * again with a growing delay when it dies, and stopped with the service.
 */
import { fork, type ChildProcess } from 'node:child_process';
import type { EnvConfig } from '../config/env.ts';
import { localMainUrl } from '../assistant/config.ts';
import type { ChildMessage, ParentMessage } from '../assistant/ipc.ts';
import type { RunningService } from './start.ts';

const FIRST_DELAY_MS = 1000;
const MAX_DELAY_MS = 60_000;
/** A child that ran this long before dying starts again after the first delay. */
const STABLE_MS = 60_000;
const STOP_GRACE_MS = 10_000;

export interface AssistantSupervisor {
  stop(): Promise<void>;
}

export function superviseAssistant(env: EnvConfig, service: RunningService, log: (line: string) => void = console.log): AssistantSupervisor {
  const childEnv = { ...process.env, SVC_ASSISTANT_MAIN_URL: process.env.SVC_ASSISTANT_MAIN_URL?.trim() || localMainUrl(env, service.httpPort) };
  let child: ChildProcess | null = null;
  let stopping = false;
  let delay = FIRST_DELAY_MS;
  let restart: NodeJS.Timeout | undefined;

  const start = () => {
    const startedAt = Date.now();
    const current = fork(process.argv[1], ['assistant'], { env: childEnv, execArgv: process.execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    child = current;
    log(`Started the assistant service (pid ${current.pid})`);
    current.on('message', (message: ChildMessage) => {
      if (message?.type === 'listening') {
        env.assistant.url = message.url;
        log(`The assistant service answers on ${message.url}, and under /assistant/ here`);
      } else if (message?.type === 'openapi?') {
        current.send({ type: 'openapi', document: service.app.swagger() } satisfies ParentMessage);
      }
    });
    current.on('error', (err) => log(`The assistant service: ${err.message}`));
    current.once('exit', (code, signal) => {
      env.assistant.url = null;
      child = null;
      if (stopping) return;
      if (Date.now() - startedAt >= STABLE_MS) delay = FIRST_DELAY_MS;
      log(`The assistant service exited (${signal ?? `code ${code}`}); starting it again in ${delay / 1000} s`);
      restart = setTimeout(start, delay);
      delay = Math.min(delay * 2, MAX_DELAY_MS);
    });
  };
  start();

  return {
    async stop() {
      stopping = true;
      clearTimeout(restart);
      const running = child;
      if (!running || running.exitCode !== null || running.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()));
      running.kill('SIGTERM');
      const kill = setTimeout(() => running.kill('SIGKILL'), STOP_GRACE_MS);
      await exited;
      clearTimeout(kill);
    },
  };
}
