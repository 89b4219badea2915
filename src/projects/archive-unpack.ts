// Unpacks an archive project's tar or zip file into its checkout as AWX's project_archive action
// does (a single top directory is stripped), but safely: no path out of the checkout, no link
// pointing out of it or written through, no device files, and caps on the unpacked size and the
// number of entries (docs/projects.md#archive-projects).
import { spawn } from 'node:child_process';
import { lstat, mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import tarStream from 'tar-stream';
import yauzl from 'yauzl';

export interface UnpackLimits {
  /** Largest total size of the unpacked files. */
  maxBytes: number;
  /** Most entries (files, directories, links). */
  maxEntries: number;
}

/** The archive cannot be unpacked safely, or is not an archive: the message says why. */
export class UnpackRefused extends Error {}

interface Entry {
  name: string;
  kind: 'file' | 'directory' | 'symlink';
  /** File contents. */
  data?: Buffer;
  /** Where a link points, as written in the archive. */
  target?: string;
  executable?: boolean;
}

const startsWith = (bytes: Buffer, magic: number[]) => magic.every((b, i) => bytes[i] === b);
const ZIP = [0x50, 0x4b];
const GZIP = [0x1f, 0x8b];
/** Compressions read with Debian's tools: bzip2, xz and zstd. */
const PIPED: { magic: number[]; command: string }[] = [
  { magic: [0x42, 0x5a, 0x68], command: 'bzip2' },
  { magic: [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00], command: 'xz' },
  { magic: [0x28, 0xb5, 0x2f, 0xfd], command: 'zstd' },
];

/** Unpacks `bytes` (a zip, or a tar: plain, gzip, bzip2, xz or zstd) into `dest`, an empty directory. Answers the number of files written. */
export async function unpackArchive(bytes: Buffer, dest: string, limits: UnpackLimits): Promise<number> {
  const entries = startsWith(bytes, ZIP) ? await zipEntries(bytes, limits) : await tarEntries(await decompressed(bytes, limits), limits);
  const strip = commonRoot(entries);
  let files = 0;
  for (const entry of entries) {
    const rel = strip ? entry.name.slice(strip.length + 1) : entry.name;
    if (!rel) continue;
    await writeEntry(dest, rel, entry);
    if (entry.kind === 'file') files += 1;
  }
  return files;
}

/** The entry's path made relative and clean; refused when it leaves the checkout. */
function cleanName(raw: string): string {
  const name = raw.replace(/\\/g, '/');
  const normal = path.posix.normalize(name).replace(/^(\.\/)+/, '').replace(/\/+$/, '');
  if (name.startsWith('/') || normal === '..' || normal.startsWith('../') || /^[A-Za-z]:/.test(name)) {
    throw new UnpackRefused(`The archive holds a path outside the project: "${raw}".`);
  }
  return normal === '.' ? '' : normal;
}

/** The single top directory every entry is in, as AWX strips it; null when there is none. */
function commonRoot(entries: Entry[]): string | null {
  const roots = new Set(entries.filter((e) => e.name).map((e) => e.name.split('/')[0]));
  if (roots.size !== 1) return null;
  const [root] = roots;
  return entries.some((e) => e.name.startsWith(`${root}/`)) ? root : null;
}

function counter(limits: UnpackLimits) {
  let bytes = 0;
  let count = 0;
  return (entry: Entry) => {
    count += 1;
    bytes += entry.data?.length ?? 0;
    if (count > limits.maxEntries) throw new UnpackRefused(`The archive holds more than ${limits.maxEntries} entries.`);
    if (bytes > limits.maxBytes) throw new UnpackRefused(`The archive unpacks to more than ${limits.maxBytes} bytes.`);
  };
}

async function decompressed(bytes: Buffer, limits: UnpackLimits): Promise<Buffer> {
  // A tar of maxBytes of files is somewhat larger: its headers and padding.
  const cap = limits.maxBytes + limits.maxEntries * 1024 + 10 * 1024;
  if (startsWith(bytes, GZIP)) {
    return promisify(gunzip)(bytes, { maxOutputLength: cap }).catch((err: NodeJS.ErrnoException) => {
      throw new UnpackRefused(err.code === 'ERR_BUFFER_TOO_LARGE' ? `The archive unpacks to more than ${limits.maxBytes} bytes.` : `The archive is not valid gzip: ${err.message}`);
    });
  }
  const piped = PIPED.find((p) => startsWith(bytes, p.magic));
  return piped ? decompressWith(piped.command, bytes, cap, limits) : bytes;
}

function decompressWith(command: string, bytes: Buffer, cap: number, limits: UnpackLimits): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, ['-dc'], { stdio: ['pipe', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    let size = 0;
    let refused: UnpackRefused | null = null;
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > cap) {
        refused ??= new UnpackRefused(`The archive unpacks to more than ${limits.maxBytes} bytes.`);
        child.kill('SIGKILL');
      } else chunks.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-500)));
    child.stdin.on('error', () => undefined);
    child.on('error', (err) => reject(new UnpackRefused(`The archive is compressed with ${command}, which could not run: ${err.message}`)));
    child.on('close', (code) => {
      if (refused) reject(refused);
      else if (code !== 0) reject(new UnpackRefused(`The archive is not valid ${command} data: ${stderr.trim()}`));
      else resolve(Buffer.concat(chunks));
    });
    child.stdin.end(bytes);
  });
}

function tarEntries(bytes: Buffer, limits: UnpackLimits): Promise<Entry[]> {
  return new Promise((resolve, reject) => {
    const entries: Entry[] = [];
    const files = new Map<string, Entry>();
    const count = counter(limits);
    const extract = tarStream.extract();
    const fail = (err: unknown) => {
      extract.destroy();
      reject(err instanceof UnpackRefused ? err : new UnpackRefused(`The file is not a tar or zip archive: ${(err as Error).message}`));
    };
    extract.on('entry', (header, stream, next) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: unknown) => chunks.push(chunk as Buffer));
      stream.on('error', fail);
      stream.on('end', () => {
        try {
          const name = cleanName(header.name);
          let entry: Entry;
          if (header.type === 'file' || header.type === 'contiguous-file') {
            entry = { name, kind: 'file', data: Buffer.concat(chunks), executable: ((header.mode ?? 0) & 0o111) !== 0 };
            files.set(name, entry);
          } else if (header.type === 'directory') entry = { name, kind: 'directory' };
          else if (header.type === 'symlink') entry = { name, kind: 'symlink', target: header.linkname ?? '' };
          else if (header.type === 'link') {
            // A hard link is written as a copy of the file it names, which must be in the archive before it.
            const source = files.get(cleanName(header.linkname ?? ''));
            if (!source) throw new UnpackRefused(`The archive's hard link "${header.name}" names a file it does not hold before it.`);
            entry = { ...source, name };
          } else throw new UnpackRefused(`The archive holds "${header.name}", a ${header.type}: only files, directories and links are unpacked.`);
          count(entry);
          entries.push(entry);
          next();
        } catch (err) {
          fail(err);
        }
      });
    });
    extract.on('finish', () => resolve(entries));
    extract.on('error', fail);
    extract.end(bytes);
  });
}

function zipEntries(bytes: Buffer, limits: UnpackLimits): Promise<Entry[]> {
  return new Promise((resolve, reject) => {
    const invalid = (err: Error) => (err instanceof UnpackRefused ? err : new UnpackRefused(`The zip archive could not be read: ${err.message}`));
    yauzl.fromBuffer(bytes, { lazyEntries: true, decodeStrings: true, validateEntrySizes: true, strictFileNames: false }, (err, zip) => {
      if (err || !zip) return reject(invalid(err ?? new Error('no archive')));
      const entries: Entry[] = [];
      const count = counter(limits);
      const fail = (e: Error) => {
        zip.close();
        reject(invalid(e));
      };
      zip.on('entry', (record: yauzl.Entry) => {
        try {
          const name = cleanName(record.fileName);
          const mode = (record.externalFileAttributes >>> 16) & 0o170000;
          if (record.fileName.endsWith('/')) {
            const entry: Entry = { name, kind: 'directory' };
            count(entry);
            entries.push(entry);
            return zip.readEntry();
          }
          if (record.uncompressedSize > limits.maxBytes) throw new UnpackRefused(`The archive unpacks to more than ${limits.maxBytes} bytes.`);
          zip.openReadStream(record, (streamErr, stream) => {
            if (streamErr || !stream) return fail(streamErr ?? new Error('unreadable entry'));
            const chunks: Buffer[] = [];
            stream.on('data', (chunk: Buffer) => chunks.push(chunk));
            stream.on('error', fail);
            stream.on('end', () => {
              try {
                const data = Buffer.concat(chunks);
                const entry: Entry = mode === 0o120000
                  ? { name, kind: 'symlink', target: data.toString('utf8') }
                  : { name, kind: 'file', data, executable: ((record.externalFileAttributes >>> 16) & 0o111) !== 0 };
                count(entry);
                entries.push(entry);
                zip.readEntry();
              } catch (e) {
                fail(e as Error);
              }
            });
          });
        } catch (e) {
          fail(e as Error);
        }
      });
      zip.on('end', () => resolve(entries));
      zip.on('error', fail);
      zip.readEntry();
    });
  });
}

/** Makes the directories above `rel` in `dest`, refusing to go through a link or a file. */
async function parentsOf(dest: string, rel: string): Promise<void> {
  const parts = rel.split('/').slice(0, -1);
  let current = dest;
  for (const part of parts) {
    current = path.join(current, part);
    const found = await lstat(current).catch(() => null);
    if (!found) await mkdir(current, { mode: 0o755 });
    else if (found.isSymbolicLink()) throw new UnpackRefused(`The archive writes "${rel}" through a link.`);
    else if (!found.isDirectory()) throw new UnpackRefused(`The archive writes "${rel}" inside a file.`);
  }
}

async function writeEntry(dest: string, rel: string, entry: Entry): Promise<void> {
  await parentsOf(dest, rel);
  const target = path.join(dest, rel);
  const existing = await lstat(target).catch(() => null);
  if (entry.kind === 'directory') {
    if (existing?.isDirectory()) return;
    if (existing) throw new UnpackRefused(`The archive holds "${rel}" both as a directory and as a file or link.`);
    await mkdir(target, { mode: 0o755 });
    return;
  }
  if (existing?.isDirectory()) throw new UnpackRefused(`The archive holds "${rel}" both as a directory and as a file or link.`);
  // A later entry of the same name replaces the earlier one; never written through a link.
  if (existing) await rm(target, { force: true });
  if (entry.kind === 'symlink') {
    const link = entry.target ?? '';
    const resolved = path.posix.normalize(path.posix.join(path.posix.dirname(rel), link.replace(/\\/g, '/')));
    if (!link || link.startsWith('/') || resolved === '..' || resolved.startsWith('../')) {
      throw new UnpackRefused(`The archive's link "${rel}" points out of the project ("${link}").`);
    }
    await symlink(link, target);
    return;
  }
  await writeFile(target, entry.data ?? Buffer.alloc(0), { flag: 'wx', mode: entry.executable ? 0o755 : 0o644 });
}
