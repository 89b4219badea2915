/**
 * The web console (ui/, built by `npm run build` into ui/dist): its hashed assets under /assets/,
 * and index.html for every other page address (the console routes in the browser). API, websocket
 * and sign-in paths never fall back to it: an unknown API path stays a JSON 404.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PUBLIC } from '../api/permissions.ts';
import { notFound } from '../api/errors.ts';
import type { Database } from '../db/database.ts';
import { brandedIndex, brandingForHost, logoAddress } from './console-branding.ts';

export const CONSOLE_DIST = path.resolve(import.meta.dirname, '../../ui/dist');

const NOT_CONSOLE = /^\/(api|websocket|sso|assistant|assets)(\/|$)/;
const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.ttf': 'font/ttf',
  '.json': 'application/json',
};
const COMPRESSIBLE = new Set(['.js', '.css', '.svg', '.json']);

/**
 * The console's Content-Security-Policy: scripts, styles, fonts and requests only from this origin
 * (the built index.html has no inline script or style: Vite links every file), its live output on
 * this origin's websocket, images also as data: URLs (PatternFly's icons), no plugins, and no page
 * may frame it. `'self'` covers ws:/wss: in CSP level 3; the websocket origin is named for browsers
 * that predate it.
 */
function contentSecurityPolicy(request: FastifyRequest, logoOrigin?: string): string {
  // The Host header is the client's: named only when it is a plain host[:port], so it can add no directive.
  const websocket = /^[A-Za-z0-9.\-]+(:\d+)?$|^\[[0-9A-Fa-f:.]+\](:\d+)?$/.test(request.host) ? ` ${request.protocol === 'https' ? 'wss' : 'ws'}://${request.host}` : '';
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    // A tenant's logo may live on another site: that origin only, on its custom domain only.
    `img-src 'self' data:${logoOrigin ? ` ${logoOrigin}` : ''}`,
    "font-src 'self' data:",
    `connect-src 'self'${websocket}`,
    "object-src 'none'",
    "frame-ancestors 'none'",
    "base-uri 'self'",
    "form-action 'self'",
  ].join('; ');
}

interface Asset {
  body: Buffer;
  gzipped?: Buffer;
  type: string;
}

/** The built files, read once: the whole console is a few megabytes. */
function loadAssets(dist: string): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  const dir = path.join(dist, 'assets');
  if (!existsSync(dir)) return assets;
  for (const name of readdirSync(dir)) {
    const ext = path.extname(name);
    const body = readFileSync(path.join(dir, name));
    assets.set(name, { body, type: TYPES[ext] ?? 'application/octet-stream', gzipped: COMPRESSIBLE.has(ext) ? gzipSync(body, { level: 9 }) : undefined });
  }
  return assets;
}

const acceptsGzip = (request: FastifyRequest) => /\bgzip\b/.test(String(request.headers['accept-encoding'] ?? ''));

function sendAsset(request: FastifyRequest, reply: FastifyReply, asset: Asset, cache: string) {
  reply.header('Content-Type', asset.type).header('Cache-Control', cache).header('Vary', 'Accept-Encoding');
  if (asset.gzipped && acceptsGzip(request)) return reply.header('Content-Encoding', 'gzip').send(asset.gzipped);
  return reply.send(asset.body);
}

const NOT_BUILT = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Drover</title></head><body>
<h1>The web console is not built</h1><p>Run <code>npm run build</code> (or <code>npm run setup</code>) and restart the service. The API is at <a href="/api/">/api/</a>.</p></body></html>`;

/** `db` finds the tenant whose custom domain the page is asked on (no branding without it). */
export function registerConsole(app: FastifyInstance, db?: Database, dist = CONSOLE_DIST): void {
  const assets = loadAssets(dist);
  const indexPath = path.join(dist, 'index.html');
  const index: Asset | undefined = existsSync(indexPath)
    ? { body: readFileSync(indexPath), type: 'text/html; charset=utf-8', gzipped: gzipSync(readFileSync(indexPath)) }
    : undefined;

  app.route({
    method: ['GET', 'HEAD'],
    url: '/assets/:file',
    config: { permission: PUBLIC },
    schema: { summary: 'A file of the web console (scripts, styles, fonts), named with a hash of its content', params: { type: 'object', properties: { file: { type: 'string' } }, required: ['file'] } },
    handler: async (request, reply) => {
      const asset = assets.get((request.params as { file: string }).file);
      if (!asset) return reply.code(404).type('text/plain; charset=utf-8').send('Not found.');
      // Names carry a hash of the content: a new build has new names.
      return sendAsset(request, reply, asset, 'public, max-age=31536000, immutable');
    },
  });

  app.setNotFoundHandler(async (request, reply) => {
    const pathname = request.url.split('?')[0];
    const isPage = (request.method === 'GET' || request.method === 'HEAD') && !NOT_CONSOLE.test(pathname);
    if (!isPage) return reply.code(404).send(notFound().body);
    const branding = index && db ? await brandingForHost(db, request.headers.host) : undefined;
    reply.header('Content-Security-Policy', contentSecurityPolicy(request, branding && logoAddress(branding.logo_url)?.origin));
    reply.header('Referrer-Policy', 'same-origin').header('X-Frame-Options', 'DENY');
    if (!index) return reply.code(503).type('text/html; charset=utf-8').header('Cache-Control', 'no-store').send(NOT_BUILT);
    if (branding) return reply.header('Cache-Control', 'no-cache').type('text/html; charset=utf-8').send(brandedIndex(index.body.toString('utf8'), branding));
    return sendAsset(request, reply, index, 'no-cache');
  });
}
