import { randomBytes } from 'node:crypto';
import { chmod, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { UndecryptableSetting } from '../../config/settings/secret-value.ts';
import type { EnvConfig } from '../../config/env.ts';
import { SecretDecryptionError } from '../../secrets/encryption.ts';
import { reencryptAll } from '../../secrets/rotation.ts';
import { SECRET_STORES } from '../../composition/root.ts';
import { CommandError, parseOptions, withServices, type Command } from '../command.ts';

/** The data directory's secret_key file when the key in use comes from it (embedded mode without SVC_SECRET_KEY). */
async function keyFileInUse(env: EnvConfig): Promise<string | null> {
  if (env.mode !== 'embedded') return null;
  const file = path.join(env.dataDir, 'secret_key');
  const stored = await readFile(file, 'utf8').then((text) => text.trim(), () => null);
  return stored === env.secretKey ? file : null;
}

async function writeSecretFile(file: string, secret: string): Promise<void> {
  await writeFile(file, secret + '\n', { mode: 0o600 });
  await chmod(file, 0o600);
}

export const regenerateSecretKey: Command = {
  name: 'regenerate_secret_key',
  summary: 'Re-encrypt every stored secret under a new secret key, and print the key',
  usage: '',
  async run({ env, args, io }) {
    parseOptions(args, {});
    const newKey = randomBytes(48).toString('base64url');
    const keyFile = await keyFileInUse(env);
    // The new key is on disk before the secrets change, so a crash between the two loses nothing.
    const pending = keyFile && `${keyFile}.new`;
    if (pending) await writeSecretFile(pending, newKey);
    let counts: Record<string, number>;
    try {
      counts = await withServices(env, (services) => services.db.transaction((tx) => reencryptAll(tx, SECRET_STORES, env.secretKey, newKey)));
    } catch (err) {
      if (pending) await rm(pending, { force: true });
      if (err instanceof SecretDecryptionError || err instanceof UndecryptableSetting) {
        throw new CommandError(`${err.message.replace(/\.$/, '')}; nothing was changed.`);
      }
      throw err;
    }
    if (keyFile && pending) await rename(pending, keyFile);
    io.out(newKey);
    io.err(`Re-encrypted ${Object.entries(counts).map(([name, n]) => `${n} ${name}`).join(', ')}.`);
    if (keyFile) io.err(`The new key is stored in ${keyFile}; restart the service to use it.`);
    else io.err('Set SVC_SECRET_KEY to the new key (printed above) on every node and restart them: until then they cannot decrypt stored secrets.');
    return 0;
  },
};
