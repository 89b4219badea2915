/**
 * A blank PGlite cluster (just after initdb, nothing of drover's in it) kept as an image next to the
 * installation, keyed on PGlite's version: a new embedded database is loaded from it in about a
 * second instead of running initdb in WebAssembly, which takes ten. Where the image cannot be kept
 * (a read-only installation), every new cluster is simply made by initdb.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repositoryRoot = path.resolve(import.meta.dirname, '../..');

export interface BlankClusterImage {
  file: string;
  /** The image, or null when there is none yet (the new cluster is made by initdb and may be kept). */
  blob: Blob | null;
}

async function imageFile(): Promise<string> {
  const manifest = fileURLToPath(new URL('../package.json', import.meta.resolve('@electric-sql/pglite')));
  const { version } = JSON.parse(await readFile(manifest, 'utf8')) as { version: string };
  return path.join(repositoryRoot, '.cache', `pglite-blank-${version}.tar.gz`);
}

/** The image for a cluster about to be made in `dataDir` (or in memory); null when the directory already holds one. */
export async function blankClusterImage(dataDir: string | undefined): Promise<BlankClusterImage | null> {
  if (dataDir && existsSync(path.join(dataDir, 'PG_VERSION'))) return null;
  const file = await imageFile();
  const bytes = await readFile(file).catch(() => null);
  return { file, blob: bytes && new Blob([bytes]) };
}

/** Keeps the image of a cluster initdb just made, before anything is written to it; failures only cost the next start its speed. */
export async function keepBlankClusterImage(image: BlankClusterImage, dump: () => Promise<Blob>): Promise<void> {
  try {
    const bytes = Buffer.from(await (await dump()).arrayBuffer());
    await mkdir(path.dirname(image.file), { recursive: true });
    const tmp = `${image.file}.${process.pid}.tmp`;
    await writeFile(tmp, bytes, { mode: 0o644 });
    await rename(tmp, image.file);
  } catch {
    // Made by initdb again next time.
  }
}
