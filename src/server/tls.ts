import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { generate } from 'selfsigned';
import type { EnvConfig } from '../config/env.ts';

export interface TlsMaterial {
  cert: string;
  key: string;
  selfSigned: boolean;
}

/** The configured certificate, or a self-signed one generated once into the data directory. */
export async function loadTls(env: EnvConfig): Promise<TlsMaterial> {
  if (env.tlsCert && env.tlsKey) {
    return { cert: await readFile(env.tlsCert, 'utf8'), key: await readFile(env.tlsKey, 'utf8'), selfSigned: false };
  }
  const dir = path.join(env.dataDir, 'tls');
  const certFile = path.join(dir, 'selfsigned.crt');
  const keyFile = path.join(dir, 'selfsigned.key');
  try {
    return { cert: await readFile(certFile, 'utf8'), key: await readFile(keyFile, 'utf8'), selfSigned: true };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const now = new Date();
  const pems = await generate([{ name: 'commonName', value: env.nodeName }], {
    keySize: 2048,
    notBeforeDate: now,
    notAfterDate: new Date(now.getTime() + 3650 * 24 * 3600 * 1000),
    extensions: [
      { name: 'basicConstraints', cA: false },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: env.nodeName },
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
        ],
      },
    ],
  });
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await writeFile(keyFile, pems.private, { mode: 0o600 });
  await writeFile(certFile, pems.cert, { mode: 0o600 });
  return { cert: pems.cert, key: pems.private, selfSigned: true };
}
