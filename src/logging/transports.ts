/**
 * How records reach the aggregator (LOG_AGGREGATOR_PROTOCOL): HTTPS (one POST of JSON per record,
 * basic auth, or a Splunk HEC token as AWX configures rsyslog's omhttp), TCP (newline-delimited JSON
 * on one kept connection) or UDP (one datagram per record).
 */
import dgram from 'node:dgram';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';

export interface AggregatorTarget {
  protocol: 'https' | 'tcp' | 'udp';
  host: string;
  port: number | null;
  type: string | null;
  username: string;
  password: string;
  timeoutMs: number;
  verifyCert: boolean;
}

export interface Transport {
  send(line: string): Promise<void>;
  close(): void;
}

/** The URL records are posted to: https:// unless the host names http://, the port setting when the host has none. */
export function aggregatorUrl(target: AggregatorTarget): URL {
  const url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(target.host) ? target.host : `https://${target.host}`);
  if (!url.port && target.port) url.port = String(target.port);
  return url;
}

function httpsTransport(target: AggregatorTarget): Transport {
  const url = aggregatorUrl(target);
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (target.type === 'splunk' && target.password) headers.authorization = `Splunk ${target.password}`;
  else if (target.username && target.password) {
    headers.authorization = `Basic ${Buffer.from(`${target.username}:${target.password}`).toString('base64')}`;
  }
  const client = url.protocol === 'http:' ? http : https;
  const agent = url.protocol === 'http:' ? new http.Agent({ keepAlive: true }) : new https.Agent({ keepAlive: true, rejectUnauthorized: target.verifyCert });
  return {
    send: (line) => new Promise((resolve, reject) => {
      const req = client.request(url, { method: 'POST', headers: { ...headers, 'content-length': String(Buffer.byteLength(line)) }, agent, timeout: target.timeoutMs }, (res) => {
        res.resume();
        res.on('end', () => (res.statusCode! < 300 ? resolve() : reject(new Error(`${url.origin} answered ${res.statusCode}`))));
        res.on('error', reject);
      });
      req.on('timeout', () => req.destroy(new Error(`${url.origin} did not answer within ${target.timeoutMs / 1000} s`)));
      req.on('error', reject);
      req.end(line);
    }),
    close: () => agent.destroy(),
  };
}

function tcpTransport(target: AggregatorTarget): Transport {
  let socket: net.Socket | null = null;
  let connecting: Promise<net.Socket> | null = null;
  const connect = () => {
    connecting ??= new Promise<net.Socket>((resolve, reject) => {
      const s = net.connect({ host: target.host, port: target.port! });
      s.setTimeout(target.timeoutMs, () => s.destroy(new Error(`connection to ${target.host}:${target.port} timed out`)));
      s.once('connect', () => {
        s.setTimeout(0);
        s.setKeepAlive(true);
        socket = s;
        resolve(s);
      });
      s.once('error', reject);
      s.on('close', () => {
        if (socket === s) socket = null;
        connecting = null;
      });
      // The aggregator's answers, if any, are not read.
      s.on('data', () => undefined);
    }).catch((err) => {
      connecting = null;
      throw err;
    });
    return connecting;
  };
  return {
    async send(line) {
      const s = socket ?? (await connect());
      await new Promise<void>((resolve, reject) => {
        const failed = (err: Error) => reject(err);
        s.once('error', failed);
        s.write(`${line}\n`, (err) => {
          s.off('error', failed);
          if (err) {
            s.destroy();
            reject(err);
          } else resolve();
        });
      });
    },
    close: () => socket?.end(),
  };
}

function udpTransport(target: AggregatorTarget): Transport {
  const socket = dgram.createSocket(net.isIPv6(target.host) ? 'udp6' : 'udp4');
  socket.unref();
  socket.on('error', () => undefined);
  return {
    send: (line) => new Promise((resolve, reject) => socket.send(line, target.port!, target.host, (err) => (err ? reject(err) : resolve()))),
    close: () => socket.close(),
  };
}

export function openTransport(target: AggregatorTarget): Transport {
  if (target.protocol === 'tcp') return tcpTransport(target);
  if (target.protocol === 'udp') return udpTransport(target);
  return httpsTransport(target);
}
