import { spawn } from 'node:child_process';
import { mkdir, rm } from 'node:fs/promises';

/**
 * Writes out an image of a data directory (PGlite's dumpDataDir: a gzipped tar) into the new,
 * empty directory `dir` with the system's tar, in a fraction of the time PGlite's own loadDataDir
 * takes through its WebAssembly file system. Answers false, with `dir` empty again, when tar could
 * not do it (none installed): PGlite then loads the image itself.
 */
export async function unpackImage(image: Blob, dir: string): Promise<boolean> {
  const bytes = new Uint8Array(await image.arrayBuffer());
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const unpacked = await new Promise<boolean>((resolve) => {
    // The image's paths start with '/', which tar strips; its owners and modes are not kept.
    const tar = spawn('tar', ['-xzf', '-', '-C', dir, '--no-same-owner', '--no-same-permissions'], { stdio: ['pipe', 'ignore', 'ignore'] });
    tar.on('error', () => resolve(false));
    tar.on('close', (code) => resolve(code === 0));
    tar.stdin.on('error', () => undefined);
    tar.stdin.end(bytes);
  });
  if (!unpacked) {
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir, { recursive: true, mode: 0o700 });
  }
  return unpacked;
}
