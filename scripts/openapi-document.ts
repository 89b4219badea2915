/**
 * Prints the service's OpenAPI document (what GET /api/v2/openapi.json answers) without starting a
 * server: a throwaway embedded database, the app built without its background loops.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadEnvConfig } from '../src/config/env.ts';
import { openServices } from '../src/server/start.ts';
import { buildApp } from '../src/server/app.ts';

export async function openApiDocument(): Promise<unknown> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'drover-openapi-'));
  try {
    const env = await loadEnvConfig({
      SVC_DATA_DIR: dataDir,
      SVC_SECRET_KEY: 'openapi',
      SVC_BROADCAST_WEBSOCKET_SECRET: 'openapi',
      SVC_ADMIN_PASSWORD: 'openapi',
      SVC_CSRF_TRUSTED_ORIGINS: 'http://localhost',
    });
    const services = await openServices(env);
    const app = await buildApp(services, { dispatcher: false });
    await app.ready();
    const document = app.swagger();
    await app.close();
    await services.db.close();
    return document;
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.stdout.write(JSON.stringify(await openApiDocument(), null, 1));
}
