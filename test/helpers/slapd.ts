/**
 * A real OpenLDAP server for tests: its own config and database in a temporary directory,
 * seeded offline with slapadd, listening on loopback (ldap:// and ldaps://, with a self-signed
 * certificate made here), stopped by stop().
 */
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { generate } from 'selfsigned';

const run = promisify(execFile);

export interface Slapd {
  url: string;
  ldapsUrl: string;
  /** PEM of the server's self-signed certificate (its own CA). */
  certificate: string;
  suffix: string;
  adminDn: string;
  adminPassword: string;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function waitForPort(port: number, child: ChildProcess, deadline = Date.now() + 10_000): Promise<void> {
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`slapd exited with ${child.exitCode}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => (socket.destroy(), resolve(true)));
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('slapd did not start in time');
}

/** Starts slapd with `ldif` (entries under `suffix`, which is created) loaded. */
export async function startSlapd(ldif: string, suffix = 'dc=example,dc=org'): Promise<Slapd> {
  const dir = await mkdtemp(path.join(tmpdir(), 'slapd-'));
  const dataDir = path.join(dir, 'data');
  await mkdir(dataDir);
  const adminDn = `cn=admin,${suffix}`;
  const adminPassword = 'admin-secret';
  const pems = await generate([{ name: 'commonName', value: '127.0.0.1' }], {
    keySize: 2048,
    algorithm: 'sha256',
    extensions: [{ name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }, { type: 2, value: 'localhost' }] }],
  } as never);
  await writeFile(path.join(dir, 'cert.pem'), pems.cert);
  await writeFile(path.join(dir, 'key.pem'), pems.private, { mode: 0o600 });
  const conf = path.join(dir, 'slapd.conf');
  await writeFile(
    conf,
    `include /etc/ldap/schema/core.schema
include /etc/ldap/schema/cosine.schema
include /etc/ldap/schema/inetorgperson.schema
include /etc/ldap/schema/nis.schema
modulepath /usr/lib/ldap
moduleload back_mdb
pidfile ${dir}/slapd.pid
TLSCertificateFile ${dir}/cert.pem
TLSCertificateKeyFile ${dir}/key.pem
database mdb
maxsize 10485760
suffix "${suffix}"
rootdn "${adminDn}"
rootpw ${adminPassword}
directory ${dataDir}
access to attrs=userPassword by anonymous auth by self write by * none
access to * by * read
`,
  );
  const dc = /^dc=([^,]+)/.exec(suffix)![1];
  const seed = `dn: ${suffix}\nobjectClass: dcObject\nobjectClass: organization\ndc: ${dc}\no: ${dc}\n\n${ldif.trim()}\n`;
  await writeFile(path.join(dir, 'seed.ldif'), seed);
  await run('/usr/sbin/slapadd', ['-f', conf, '-l', path.join(dir, 'seed.ldif')]);
  const port = await freePort();
  const tlsPort = await freePort();
  const child = spawn('/usr/sbin/slapd', ['-f', conf, '-h', `ldap://127.0.0.1:${port}/ ldaps://127.0.0.1:${tlsPort}/`, '-d', '0'], { stdio: 'ignore' });
  await waitForPort(port, child);
  await waitForPort(tlsPort, child);
  return {
    url: `ldap://127.0.0.1:${port}`,
    ldapsUrl: `ldaps://127.0.0.1:${tlsPort}`,
    certificate: pems.cert,
    suffix,
    adminDn,
    adminPassword,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}
