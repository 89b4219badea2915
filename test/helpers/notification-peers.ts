/** Real peers on 127.0.0.1 that notifications are sent to: an HTTP server, an SMTP server and an IRC server. */
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { generate } from 'selfsigned';
import { SMTPServer } from 'smtp-server';

export interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface HttpPeer {
  base: string;
  received: Received[];
  /** Answers of given paths (status, body and any headers, such as a redirect's location); others answer 200 "ok". */
  answers: Map<string, { status: number; body: string; headers?: Record<string, string> }>;
  close(): Promise<void>;
}

export async function selfSignedCert(): Promise<{ key: string; cert: string }> {
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], { keySize: 2048, days: 1 } as never);
  return { key: pems.private, cert: pems.cert };
}

/** An HTTP (or, given a certificate, HTTPS) server recording every request. */
export async function startHttpPeer(tls?: { key: string; cert: string }): Promise<HttpPeer> {
  const received: Received[] = [];
  const answers: HttpPeer['answers'] = new Map();
  const handler: http.RequestListener = (req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      received.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      const answer = answers.get(req.url!.split('?')[0]) ?? { status: 200, body: 'ok' };
      res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers }).end(answer.body);
    });
  };
  const server = tls ? https.createServer(tls, handler) : http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    base: `${tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    received,
    answers,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

export interface Mail {
  from: string;
  to: string[];
  data: string;
  secure: boolean;
  user?: string;
}

export interface SmtpPeer {
  port: number;
  mails: Mail[];
  close(): Promise<void>;
}

/** An SMTP server recording what it is sent: plain, with STARTTLS offered (given a certificate), or TLS from the start (`secure`). */
export async function startSmtpPeer(options: { tls?: { key: string; cert: string }; secure?: boolean; auth?: { user: string; pass: string } } = {}): Promise<SmtpPeer> {
  const mails: Mail[] = [];
  const server = new SMTPServer({
    secure: options.secure === true,
    ...(options.tls && { key: options.tls.key, cert: options.tls.cert }),
    authOptional: !options.auth,
    disabledCommands: [...(options.tls ? [] : ['STARTTLS']), ...(options.auth ? [] : ['AUTH'])],
    allowInsecureAuth: true,
    onAuth(auth, _session, callback) {
      if (options.auth && auth.username === options.auth.user && auth.password === options.auth.pass) return callback(null, { user: auth.username });
      callback(new Error('Invalid username or password'));
    },
    onData(stream, session, callback) {
      let data = '';
      stream.setEncoding('utf8');
      stream.on('data', (chunk: string) => (data += chunk));
      stream.on('end', () => {
        mails.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          data,
          secure: session.secure,
          user: session.user as string | undefined,
        });
        callback();
      });
    },
    logger: false,
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return { port, mails, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

export interface IrcPeer {
  port: number;
  /** Every line clients sent. */
  lines: string[];
  close(): Promise<void>;
}

/** An IRC server that welcomes every client once it has a nick and a user, and records what they send. */
export async function startIrcPeer(): Promise<IrcPeer> {
  const lines: string[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    let buffered = '';
    let nick = '';
    let user = false;
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      buffered += chunk;
      const parts = buffered.split('\r\n');
      buffered = parts.pop() ?? '';
      for (const line of parts) {
        lines.push(line);
        if (line.startsWith('NICK ')) nick = line.slice(5);
        if (line.startsWith('USER ')) user = true;
        if (line.startsWith('QUIT')) socket.end();
        if (nick && user && !line.startsWith('PRIVMSG') && !line.startsWith('JOIN') && !line.startsWith('QUIT')) {
          socket.write(`:irc.test PING :check\r\n:irc.test 001 ${nick} :Welcome\r\n`);
          user = false;
        }
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    lines,
    close: () => new Promise((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    }),
  };
}
