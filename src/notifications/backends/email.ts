/**
 * Email over SMTP with nodemailer: plain, STARTTLS (use_tls) or SMTP over TLS (use_ssl), with the
 * timeout of the configuration. The server's address is checked by the outbound guard and the
 * connection made to that very address, the certificate checked against the configured host name.
 */
import nodemailer from 'nodemailer';
import { resolveAllowedHost } from '../../net/outbound.ts';
import { oneLine, type Backend } from './backend.ts';

export const email: Backend = async ({ subject, body, configuration: c }, policy) => {
  const address = await resolveAllowedHost(String(c.host), policy);
  const timeout = (typeof c.timeout === 'number' && c.timeout > 0 ? c.timeout : 30) * 1000;
  const transport = nodemailer.createTransport({
    host: address,
    port: c.port,
    secure: c.use_ssl === true,
    // As Django's backend: STARTTLS when asked for (and then required), never on its own.
    requireTLS: c.use_tls === true && c.use_ssl !== true,
    ignoreTLS: c.use_tls !== true,
    ...(c.username || c.password ? { auth: { user: c.username ?? '', pass: c.password ?? '' } } : {}),
    connectionTimeout: timeout,
    greetingTimeout: timeout,
    socketTimeout: timeout,
    tls: { servername: String(c.host), rejectUnauthorized: c.disable_ssl_verification !== true },
  });
  try {
    await transport.sendMail({ from: c.sender, to: c.recipients as string[], subject: oneLine(subject), text: body });
  } finally {
    transport.close();
  }
  return 1;
};
