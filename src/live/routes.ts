import { ServerResponse, type IncomingMessage, type Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { WebSocketServer, type WebSocket } from 'ws';
import { ApiError } from '../api/errors.ts';
import { viewOptions } from '../api/options.ts';
import { routeMethods } from '../api/resource-routes.ts';
import { CSRF_COOKIE } from '../auth/sessions.ts';
import { AUTHENTICATED } from '../api/permissions.ts';
import { LiveClient } from './client.ts';
import { credentialCheck } from './credentials.ts';
import { LiveHub } from './hub.ts';
import { liveLimits } from './limits.ts';
import { handleClientMessage } from './subscribe.ts';
import type { RunServices } from '../runs/run-services.ts';

export const LIVE_PATHS = ['/websocket/', '/api/websocket/'] as const;

declare module 'fastify' {
  interface FastifyInstance {
    /** Serves the live output websocket on another server sharing this app's handler (the HTTPS one). */
    acceptLiveOutput(server: Server): void;
  }
}

/** Upgrade requests on their way through the router, with the socket they arrived on. */
const upgrades = new WeakMap<IncomingMessage, { socket: Duplex; head: Buffer }>();

/**
 * The live output websocket at /websocket/ (and /api/websocket/). An upgrade request goes
 * through the app's router and hooks like any request, so it is authenticated as every other
 * one (bearer token, session cookie): a bad Host, missing or bad credentials are answered
 * with the usual 4xx and a detail before any upgrade.
 */
export async function registerLiveOutput(app: FastifyInstance, services: RunServices): Promise<void> {
  const hub = new LiveHub(services);
  await hub.start();
  const wss = new WebSocketServer({ noServer: true, maxPayload: liveLimits.maxMessageBytes });
  const heartbeat = setInterval(() => hub.heartbeat(), liveLimits.pingIntervalMs);
  heartbeat.unref();
  // Before the HTTP server closes: it waits for every open socket, websockets included.
  app.addHook('preClose', async () => {
    clearInterval(heartbeat);
    await hub.stop();
    wss.close();
  });

  for (const url of LIVE_PATHS) {
    routeMethods(app, url, AUTHENTICATED, {
      GET: async (request, reply) => {
        const pending = upgrades.get(request.raw);
        if (!pending) throw new ApiError(426, { detail: 'This endpoint takes websocket connections only (Upgrade: websocket).' });
        upgrades.delete(request.raw);
        reply.hijack();
        wss.handleUpgrade(request.raw, pending.socket, pending.head, (ws) => connect(hub, services, request, ws));
      },
      OPTIONS: async () => viewOptions('Live Output', 'Websocket of live output (AWX protocol): connect with Upgrade: websocket, then join groups.'),
    });
  }

  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    upgrades.set(req, { socket, head });
    const res = new ServerResponse(req);
    res.assignSocket(socket as Socket);
    // Answered without an upgrade (an error, another path): the connection ends with the answer.
    res.on('finish', () => {
      if (upgrades.delete(req)) socket.end();
    });
    app.routing(req, res);
  };
  app.server.on('upgrade', onUpgrade);
  app.decorate('acceptLiveOutput', (server: Server) => void server.on('upgrade', onUpgrade));
}

function connect(hub: LiveHub, services: RunServices, request: FastifyRequest, ws: WebSocket): void {
  const { ctx } = request;
  ws.on('error', () => ws.terminate());
  if (!ctx.user) return void ws.terminate();
  // A session's ambient cookie is not enough: its messages must also carry the CSRF token (AWX's xrftoken).
  const xrfToken = ctx.authMethod === 'session' ? request.cookies[CSRF_COOKIE] ?? '' : null;
  const client = new LiveClient(ws, ctx, services, xrfToken, credentialCheck(services, request));
  hub.add(client);
  ws.on('pong', () => {
    client.alive = true;
  });
  ws.on('close', () => hub.remove(client));
  let queue = Promise.resolve();
  ws.on('message', (data, isBinary) => {
    const text = isBinary ? '' : Buffer.isBuffer(data) ? data.toString('utf8') : Buffer.concat([data].flat() as Buffer[]).toString('utf8');
    queue = queue
      .then(() => handleClientMessage(client, text))
      .catch((err) => {
        console.error('live output message failed:', err instanceof Error ? err.message : err);
        client.send({ error: 'The message could not be handled.' });
      });
  });
  client.send({ accept: true, user: ctx.user.id });
}
