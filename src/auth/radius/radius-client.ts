/**
 * A PAP Access-Request to a RADIUS server over UDP (RFC 2865): sent again when no answer comes,
 * within one overall deadline, and an answer counts only when its Response Authenticator (and its
 * Message-Authenticator, when it carries one) proves it was made with the shared secret.
 */
import { createHash, randomInt, timingSafeEqual } from 'node:crypto';
import { createSocket } from 'node:dgram';
import { isIP } from 'node:net';
import radius from 'radius';

export interface RadiusServer {
  host: string;
  port: number;
  secret: string;
  /** For the whole exchange, retries included. */
  timeoutMs: number;
  /** How many times the request is sent when no valid answer comes (default 3). */
  attempts?: number;
}

export type RadiusAnswer = { accepted: true; attributes: Record<string, unknown> } | { accepted: false; reason: 'rejected' };

/** The server did not give a valid answer in time (unreachable, silent, or answering with another secret). */
export class RadiusUnavailable extends Error {}

const MESSAGE_AUTHENTICATOR = 80;

/** Whether `response` is the server's answer to `request` made with `secret` (RFC 2865 section 3). */
export function authenticResponse(request: Buffer, response: Buffer, secret: string): boolean {
  if (response.length < 20 || response[1] !== request[1]) return false;
  const length = response.readUInt16BE(2);
  if (length < 20 || length > response.length) return false;
  const expected = createHash('md5')
    .update(response.subarray(0, 4))
    .update(request.subarray(4, 20))
    .update(response.subarray(20, length))
    .update(secret, 'utf8')
    .digest();
  if (!timingSafeEqual(expected, response.subarray(4, 20))) return false;
  const decoded = radius.decode_without_secret({ packet: Buffer.from(response.subarray(0, length)) });
  const signed = decoded.raw_attributes.some(([type]) => type === MESSAGE_AUTHENTICATOR);
  return !signed || radius.verify_response({ request: Buffer.from(request), response: Buffer.from(response.subarray(0, length)), secret });
}

export async function radiusAuthenticate(server: RadiusServer, username: string, password: string): Promise<RadiusAnswer> {
  const identifier = randomInt(256);
  const request = radius.encode({
    code: 'Access-Request',
    secret: server.secret,
    identifier,
    attributes: [['User-Name', username], ['User-Password', password]],
    // Asked of clients since the Blast-RADIUS attack (CVE-2024-3596); servers echo it in answers.
    add_message_authenticator: true,
  });
  const attempts = Math.max(1, server.attempts ?? 3);
  const socket = createSocket(isIP(server.host) === 6 ? 'udp6' : 'udp4');
  try {
    return await new Promise<RadiusAnswer>((resolve, reject) => {
      let sent = 0;
      let lastError = '';
      const send = () => {
        sent++;
        socket.send(request, server.port, server.host, (err) => {
          if (err) lastError = err.message;
        });
      };
      const retry = setInterval(() => (sent < attempts ? send() : undefined), Math.floor(server.timeoutMs / attempts));
      const deadline = setTimeout(() => {
        clearInterval(retry);
        reject(new RadiusUnavailable(`No valid answer from the RADIUS server ${server.host}:${server.port} within ${server.timeoutMs} ms${lastError ? ` (${lastError})` : ''}.`));
      }, server.timeoutMs);
      socket.on('error', (err) => (lastError = err.message));
      socket.on('message', (message, from) => {
        // Anything else (another peer, an answer to another request, a forged one) is ignored.
        if (from.port !== server.port || !authenticResponse(request, message, server.secret)) return;
        const code = message[0];
        if (code !== 2 && code !== 3) return;
        clearInterval(retry);
        clearTimeout(deadline);
        if (code === 3) return resolve({ accepted: false, reason: 'rejected' });
        const decoded = radius.decode({ packet: Buffer.from(message), secret: server.secret });
        resolve({ accepted: true, attributes: decoded.attributes });
      });
      socket.bind(0, () => send());
    });
  } finally {
    socket.close();
  }
}
