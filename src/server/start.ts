import http from 'node:http';
import https from 'node:https';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { RunServices } from '../runs/run-services.ts';
import type { EnvConfig } from '../config/env.ts';
import { ensurePrivateDirectory, restrictNewFiles, restrictTree } from '../config/file-modes.ts';
import { loadSettings } from '../config/settings/store.ts';
import type { Database } from '../db/database.ts';
import { migrate } from '../db/migrate.ts';
import { openDatabase } from '../db/open.ts';
import { VERSION } from '../version.ts';
import { buildApp } from './app.ts';
import { createRootLog, type RootLog } from '../logging/structured.ts';
import { composeServices, RESOURCES, settingRegistry } from '../composition/root.ts';
import { bootstrap } from './bootstrap.ts';
import { createDemoData, holdDemoRepository } from './demo-data.ts';
import { loadTls } from './tls.ts';
import { reapOrphanedRuns } from '../dispatcher/dispatcher.ts';
import { describeRuntime, nodeAnsibleRuntime } from '../runtime/ansible-runtime.ts';
import { nodeSandbox } from '../runtime/sandbox.ts';
import { describeIsolation, runIsolation } from '../runtime/run-isolation.ts';

/** Opens and migrates the database and loads settings: what both the server and management commands need. */
export async function openServices(env: EnvConfig, log?: RootLog): Promise<RunServices> {
  const db: Database = await openDatabase(env);
  try {
    await migrate(db);
    const settings = await loadSettings(db, env, settingRegistry(), RESOURCES);
    const [{ uuid }] = await db.query<{ uuid: string }>('SELECT uuid FROM installation');
    return composeServices({ db, settings, env, version: VERSION, installUuid: uuid }, { log });
  } catch (err) {
    await db.close().catch(() => undefined);
    throw err;
  }
}

export interface RunningService {
  app: FastifyInstance;
  services: RunServices;
  httpPort: number;
  httpsPort: number;
  close(): Promise<void>;
}

const isInside = (child: string, parent: string) => !path.relative(parent, child).startsWith('..') && !path.isAbsolute(path.relative(parent, child));

/** Starts the web role: HTTP on NGINX_HTTP_PORT and HTTPS on NGINX_HTTPS_PORT, one handler for both. */
export async function startService(env: EnvConfig, log: (line: string) => void = console.log): Promise<RunningService> {
  restrictNewFiles();
  const privateRoots = [{ dir: env.dataDir, name: 'SVC_DATA_DIR' }];
  if (!isInside(env.projectsRoot, env.dataDir)) privateRoots.push({ dir: env.projectsRoot, name: 'SVC_PROJECTS_ROOT' });
  for (const { dir, name } of privateRoots) await ensurePrivateDirectory(dir, name, { followLink: true });
  const serviceLog = createRootLog({ level: process.env.SVC_LOG_LEVEL ?? 'info', node: env.nodeName });
  const services = await openServices(env, serviceLog);
  // After the database is open: files an earlier version (or a looser umask) left open to others.
  for (const { dir } of privateRoots) {
    const tightened = await restrictTree(dir);
    if (tightened) log(`Made ${tightened} file(s) and directories under ${dir} private to this user (they were open to group or others)`);
  }
  const { generatedAdminPassword } = await bootstrap(services);
  if (generatedAdminPassword) {
    log(`Created superuser "${env.adminUser}" with password: ${generatedAdminPassword}`);
    log('This password is shown only once. Change it with: drover manage update_password --username ' + env.adminUser + ' --password <new>');
  }
  const runtime = await nodeAnsibleRuntime();
  log(describeRuntime(runtime));
  const sandbox = await nodeSandbox();
  log(describeIsolation(runIsolation(services.settings, sandbox), sandbox));
  const reaped = await reapOrphanedRuns(services);
  if (reaped) log(`Marked ${reaped} run(s) left running by a previous start of node ${env.nodeName} as failed`);

  const tls = await loadTls(env);
  let httpsServer: https.Server | undefined;
  const app = await buildApp(services, {
    loggerInstance: serviceLog,
    accessLog: process.env.SVC_ACCESS_LOG === 'true',
    serverFactory: (handler) => {
      httpsServer = https.createServer({ cert: tls.cert, key: tls.key }, handler);
      return http.createServer(handler);
    },
  });
  // Live output over wss:// on the HTTPS port too.
  app.acceptLiveOutput(httpsServer!);
  await holdDemoRepository(services.db, env);
  if (env.createDemoData && (await createDemoData(services))) {
    log('Created the demo content: Demo Project, Demo Inventory, Demo Credential and Demo Job Template (SVC_CREATE_DEMO_DATA=false turns this off)');
  }
  await app.listen({ port: env.httpPort, host: env.listenAddress });
  await new Promise<void>((resolve, reject) => {
    httpsServer!.once('error', reject);
    httpsServer!.listen(env.httpsPort, env.listenAddress, () => resolve());
  });
  const httpPort = (app.server.address() as { port: number }).port;
  const httpsPort = (httpsServer!.address() as { port: number }).port;
  log(`drover ${VERSION} (${env.mode} database, node ${env.nodeName}, ${env.nodeType}) listening on http://${env.listenAddress}:${httpPort} and https://${env.listenAddress}:${httpsPort}${tls.selfSigned ? ' (self-signed certificate)' : ''}`);
  return {
    app,
    services,
    httpPort,
    httpsPort,
    async close() {
      const closed = new Promise<void>((resolve) => httpsServer!.close(() => resolve()));
      httpsServer!.closeAllConnections();
      await closed;
      await app.close();
      await services.db.close();
    },
  };
}
