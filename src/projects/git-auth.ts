import { spawn, type ChildProcess } from 'node:child_process';
import { chmod, writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { stat } from 'node:fs/promises';

export interface ScmInputs {
  username?: string;
  password?: string;
  ssh_key_data?: string;
  ssh_key_unlock?: string;
}

export interface GitAuth {
  env: Record<string, string>;
  /** Plain values to scrub from output. */
  secrets: string[];
  close(): Promise<void>;
}

// git and ssh-add run this with the prompt as argument; it asks the service over a socket of the
// run's private directory, so that the secret is in no environment (git passes its own to
// everything it starts: ssh, remote helpers) and on no disk.
const ASKPASS_CLIENT = `const net = require('node:net');
let answer = '';
const socket = net.connect(process.env.DROVER_ASKPASS_SOCKET || '');
socket.on('connect', () => socket.end(String(process.argv[2] || '').slice(0, 1000)));
socket.on('data', (chunk) => { answer += chunk; });
socket.on('end', () => process.stdout.write(answer));
socket.on('error', () => process.exit(1));
`;

const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

const SSH_OPTIONS = '-o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR';

/** Serves the askpass program's questions while the sync runs. */
async function startAskpassServer(socketPath: string, inputs: ScmInputs | null): Promise<net.Server> {
  let passphrases = 0;
  // A user name, a password, or the key's passphrase (only once: ssh-add asks again after a wrong one).
  const answerFor = (prompt: string) => {
    if (/^Username/i.test(prompt)) return inputs?.username ?? '';
    if (/passphrase/i.test(prompt)) return passphrases++ ? '' : inputs?.ssh_key_unlock ?? '';
    return inputs?.password ?? '';
  };
  const server = net.createServer({ allowHalfOpen: true }, (socket) => {
    let prompt = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      prompt += chunk;
      if (prompt.length > 1000) socket.destroy();
    });
    socket.on('end', () => socket.end(`${answerFor(prompt)}\n`));
    socket.on('error', () => socket.destroy());
  });
  server.listen(socketPath);
  await once(server, 'listening');
  await chmod(socketPath, 0o600);
  return server;
}

/**
 * The environment git needs to authenticate with a Source Control credential: user name and
 * password (or token) through an askpass program asking the service; an SSH key loaded from
 * memory into a private ssh-agent that lives only as long as the sync.
 */
export async function gitAuthentication(privateDir: string, inputs: ScmInputs | null): Promise<GitAuth> {
  const client = path.join(privateDir, 'askpass.cjs');
  const askpass = path.join(privateDir, 'askpass.sh');
  const socketPath = path.join(privateDir, 'askpass.sock');
  await writeFile(client, ASKPASS_CLIENT, { mode: 0o600 });
  await writeFile(askpass, `#!/bin/sh\nexec ${quote(process.execPath)} ${quote(client)} "$1"\n`, { mode: 0o700 });
  const server = await startAskpassServer(socketPath, inputs);
  const env: Record<string, string> = {
    GIT_TERMINAL_PROMPT: '0',
    GIT_ASKPASS: askpass,
    GIT_SSH_COMMAND: `ssh ${SSH_OPTIONS} -o BatchMode=yes`,
    DROVER_ASKPASS_SOCKET: socketPath,
  };
  const secrets = [inputs?.password, inputs?.ssh_key_unlock].filter((s): s is string => !!s);
  let agent: ChildProcess | null = null;
  const close = async () => {
    if (agent && agent.exitCode === null) {
      agent.kill('SIGTERM');
      await once(agent, 'exit').catch(() => undefined);
    }
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  try {
    if (inputs?.ssh_key_data) {
      const socket = path.join(privateDir, 'agent.sock');
      agent = spawn('ssh-agent', ['-D', '-a', socket], { stdio: 'ignore' });
      await waitForSocket(socket, agent);
      await addKey(socket, askpass, socketPath, inputs.ssh_key_data, !!inputs.ssh_key_unlock);
      env.SSH_AUTH_SOCK = socket;
      env.GIT_SSH_COMMAND = `ssh ${SSH_OPTIONS}`;
    }
  } catch (err) {
    await close();
    throw err;
  }
  return { env, secrets, close };
}

async function waitForSocket(socket: string, agent: ChildProcess): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (await stat(socket).then(() => true, () => false)) return;
    if (agent.exitCode !== null) break;
    await sleep(20);
  }
  throw new Error('ssh-agent did not start');
}

/** ssh-add reads the key from standard input; a passphrase comes from the askpass program. */
async function addKey(socket: string, askpass: string, askpassSocket: string, key: string, hasPassphrase: boolean): Promise<void> {
  const child = spawn('ssh-add', ['-q', '-'], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', SSH_AUTH_SOCK: socket, SSH_ASKPASS: askpass, SSH_ASKPASS_REQUIRE: 'force', DISPLAY: 'none', DROVER_ASKPASS_SOCKET: askpassSocket },
    stdio: ['pipe', 'ignore', 'pipe'],
  });
  let errors = '';
  child.stderr!.on('data', (d) => (errors += d));
  child.stdin!.end(key.endsWith('\n') ? key : `${key}\n`);
  const [code] = await once(child, 'exit');
  if (code !== 0) throw new Error(`The SSH key of the credential could not be loaded${hasPassphrase ? ' (is the passphrase right?)' : ''}: ${errors.trim()}`);
}
