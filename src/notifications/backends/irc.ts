/**
 * A minimal IRC client: registers (PASS, NICK, USER), waits for the welcome (001), sends the
 * subject to each target (joining channels first), then quits. The server's address is checked by
 * the outbound guard and the connection made to that address.
 */
import net from 'node:net';
import tls from 'node:tls';
import { resolveAllowedHost } from '../../net/outbound.ts';
import { oneLine, SendFailed, type Backend } from './backend.ts';

const DEADLINE_MS = 60_000;

function connect(address: string, host: string, port: number, useTls: boolean): net.Socket {
  return useTls ? tls.connect({ host: address, port, servername: net.isIP(host) ? undefined : host }) : net.connect({ host: address, port });
}

export const irc: Backend = async ({ subject, configuration: c }, policy) => {
  const host = String(c.server);
  const address = await resolveAllowedHost(host, policy);
  const targets = (c.targets as string[]).map((t) => oneLine(t).replace(/\s+/g, ''));
  const nick = oneLine(String(c.nickname)).replace(/\s+/g, '');
  const text = oneLine(subject);
  return new Promise<number>((resolve, reject) => {
    const socket = connect(address, host, c.port, c.use_ssl === true);
    const timer = setTimeout(() => finish(new SendFailed(`No welcome from the IRC server ${host} within ${DEADLINE_MS / 1000} s.`)), DEADLINE_MS);
    let buffered = '';
    let done = false;
    const send = (line: string) => socket.write(`${line}\r\n`);
    function finish(err?: Error) {
      if (done) return;
      done = true;
      clearTimeout(timer);
      if (err) {
        socket.destroy();
        reject(err);
        return;
      }
      socket.end();
      resolve(targets.length);
    }
    socket.setEncoding('utf8');
    socket.on('connect', () => {
      if (c.password) send(`PASS ${oneLine(String(c.password))}`);
      send(`NICK ${nick}`);
      send(`USER ${nick} 0 * :${nick}`);
    });
    socket.on('error', (err) => finish(new SendFailed(`Exception connecting to irc server: ${err.message}`)));
    socket.on('close', () => finish(new SendFailed(`The IRC server ${host} closed the connection before the messages were sent.`)));
    socket.on('data', (chunk: string) => {
      buffered += chunk;
      const lines = buffered.split(/\r?\n/);
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        const message = line.startsWith(':') ? line.slice(line.indexOf(' ') + 1) : line;
        const command = message.split(' ')[0];
        if (command === 'PING') send(`PONG ${message.slice(5)}`);
        // Nickname refused or in use, wrong password, banned: registration cannot complete.
        else if (['432', '433', '464', '465'].includes(command)) finish(new SendFailed(`The IRC server refused: ${line}`));
        else if (command === '001') {
          for (const target of targets) {
            if (/^[#&]/.test(target)) send(`JOIN ${target}`);
            send(`PRIVMSG ${target} :${text}`);
          }
          send('QUIT :done');
          finish();
        }
      }
    });
  });
};
