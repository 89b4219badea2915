/** A RADIUS responder on UDP loopback (the radius package): accepts the users it knows, with its own shared secret. */
import { createSocket } from 'node:dgram';
import radius from 'radius';

export interface RadiusResponder {
  port: number;
  /** Access-Requests received (decoded with the responder's secret). */
  requests: Array<{ username: string; hasMessageAuthenticator: boolean }>;
  /** answer: answer normally; silent: never answer; secret: answer with this shared secret instead. */
  mode: { kind: 'answer' } | { kind: 'silent' } | { kind: 'secret'; secret: string };
  close(): Promise<void>;
}

export async function startRadiusResponder(secret: string, users: Record<string, string>): Promise<RadiusResponder> {
  const socket = createSocket('udp4');
  const responder: RadiusResponder = {
    port: 0,
    requests: [],
    mode: { kind: 'answer' },
    close: () => new Promise((resolve) => socket.close(() => resolve())),
  };
  socket.on('message', (message, peer) => {
    let packet;
    try {
      packet = radius.decode({ packet: message, secret });
    } catch {
      return;
    }
    if (packet.code !== 'Access-Request') return;
    const username = String(packet.attributes['User-Name']);
    responder.requests.push({ username, hasMessageAuthenticator: packet.attributes['Message-Authenticator'] !== undefined });
    if (responder.mode.kind === 'silent') return;
    const accepted = users[username] !== undefined && users[username] === packet.attributes['User-Password'];
    const answerSecret = responder.mode.kind === 'secret' ? responder.mode.secret : secret;
    const response = radius.encode_response({ packet, code: accepted ? 'Access-Accept' : 'Access-Reject', secret: answerSecret });
    socket.send(response, peer.port, peer.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', () => resolve()));
  responder.port = socket.address().port;
  return responder;
}
