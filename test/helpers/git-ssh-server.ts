// An SSH git server for tests: the system's sshd on 127.0.0.1 with its own host key, configuration
// and authorized keys in a temporary directory, accepting only the client keys it generated.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const SSHD = '/usr/sbin/sshd';

export interface SshGitServer {
  port: number;
  /** ssh://USER@127.0.0.1:PORT/<root>/<repo>.git (`.git` is added when missing). */
  url(repoName: string): string;
  /** OpenSSH private key (ed25519) without a passphrase, accepted by the server. */
  privateKey: string;
  /** Another accepted key, encrypted with `passphrase`. */
  encryptedPrivateKey: string;
  passphrase: string;
  /** A known_hosts line for the server's host key: `[127.0.0.1]:PORT ssh-ed25519 AAAA...`. */
  knownHostsLine: string;
  close(): Promise<void>;
}

async function keyPair(dir: string, name: string, passphrase = ''): Promise<{ privateKey: string; publicKey: string }> {
  const file = path.join(dir, name);
  await run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', passphrase, '-C', name, '-f', file]);
  return { privateKey: await readFile(file, 'utf8'), publicKey: (await readFile(`${file}.pub`, 'utf8')).trim() };
}

async function freePort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', () => resolve()));
  const { port } = probe.address() as net.AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** Starts sshd and waits until it listens; answers null when the port was taken meanwhile. */
async function startSshd(config: string): Promise<ChildProcess | null> {
  const sshd = spawn(SSHD, ['-D', '-e', '-f', config], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      sshd.kill();
      reject(new Error(`sshd did not start: ${log}`));
    }, 10_000);
    sshd.stderr!.on('data', (chunk: Buffer) => {
      log += chunk.toString();
      if (/Server listening on/.test(log)) {
        clearTimeout(timer);
        resolve(sshd);
      }
    });
    sshd.on('exit', () => {
      clearTimeout(timer);
      if (/Address already in use/.test(log)) resolve(null);
      else reject(new Error(`sshd exited: ${log}`));
    });
  });
}

/** Serves the bare repositories under `root` over SSH as the current user (root here). */
export async function startSshGitServer(root: string): Promise<SshGitServer> {
  // sshd insists on its privilege separation directory, which a fresh container may lack.
  await mkdir('/run/sshd', { recursive: true, mode: 0o755 });
  const dir = await mkdtemp(path.join(tmpdir(), 'sshd-'));
  const hostKey = await keyPair(dir, 'host_key');
  const client = await keyPair(dir, 'client_key');
  const passphrase = 'correct horse battery';
  const encrypted = await keyPair(dir, 'encrypted_key', passphrase);
  await writeFile(path.join(dir, 'authorized_keys'), `${client.publicKey}\n${encrypted.publicKey}\n`, { mode: 0o600 });
  const user = userInfo().username;

  for (let attempt = 0; attempt < 5; attempt++) {
    const port = await freePort();
    const config = path.join(dir, 'sshd_config');
    await writeFile(
      config,
      [
        `Port ${port}`,
        'ListenAddress 127.0.0.1',
        `HostKey ${path.join(dir, 'host_key')}`,
        `PidFile ${path.join(dir, 'sshd.pid')}`,
        `AuthorizedKeysFile ${path.join(dir, 'authorized_keys')}`,
        'PubkeyAuthentication yes',
        'PasswordAuthentication no',
        'KbdInteractiveAuthentication no',
        'UsePAM no',
        'StrictModes no',
        'PermitRootLogin prohibit-password',
        `AllowUsers ${user}`,
        'LogLevel INFO',
        '',
      ].join('\n'),
    );
    const sshd = await startSshd(config);
    if (!sshd) continue;
    const repoPath = (repoName: string) => path.join(path.resolve(root), repoName.endsWith('.git') ? repoName : `${repoName}.git`);
    return {
      port,
      url: (repoName) => `ssh://${user}@127.0.0.1:${port}${repoPath(repoName)}`,
      privateKey: client.privateKey,
      encryptedPrivateKey: encrypted.privateKey,
      passphrase,
      knownHostsLine: `[127.0.0.1]:${port} ${hostKey.publicKey.split(' ').slice(0, 2).join(' ')}`,
      async close() {
        if (sshd.exitCode === null) {
          const exited = new Promise((resolve) => sshd.once('exit', resolve));
          sshd.kill('SIGTERM');
          await exited;
        }
        await rm(dir, { recursive: true, force: true });
      },
    };
  }
  await rm(dir, { recursive: true, force: true });
  throw new Error('sshd found no free port');
}
