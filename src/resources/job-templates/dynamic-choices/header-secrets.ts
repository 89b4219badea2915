/**
 * The header values of an api_endpoint source often carry a token: they are stored encrypted with
 * the service secret key and always shown as $encrypted$, as survey password defaults are. Sending
 * $encrypted$ back keeps the stored value of that header.
 */
import { ENCRYPTED } from '../../../api/fields.ts';
import { decryptSecret, encryptSecret, isEncryptedSecret } from '../../../secrets/encryption.ts';

type Question = Record<string, unknown> & { variable: string };
type Headers = Record<string, string>;

export const headerPurpose = (variable: string, header: string) => `survey.${variable}.header.${header.toLowerCase()}`;

const headersOf = (q: Question | undefined): Headers | null => {
  const d = q?.dynamic_choices as { headers?: unknown } | undefined;
  return d && typeof d.headers === 'object' && d.headers !== null && !Array.isArray(d.headers) ? (d.headers as Headers) : null;
};

const withHeaders = (q: Question, headers: Headers): Question => ({ ...q, dynamic_choices: { ...(q.dynamic_choices as object), headers } });

const mapHeaders = (headers: Headers, change: (name: string, value: string) => string): Headers =>
  Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, change(name, value)]));

/** The question as stored: header values encrypted, $encrypted$ replaced by what `previous` (the same variable's question) stored. */
export function encryptHeaders(q: Question, previous: Question | undefined): Question {
  const headers = headersOf(q);
  if (!headers) return q;
  const before = new Map(Object.entries(headersOf(previous) ?? {}).map(([name, value]) => [name.toLowerCase(), value]));
  return withHeaders(q, mapHeaders(headers, (name, value) => {
    if (value !== ENCRYPTED) return encryptSecret(headerPurpose(q.variable, name), value);
    const old = before.get(name.toLowerCase());
    return isEncryptedSecret(old) ? old : '';
  }));
}

/** The question as shown: every header value $encrypted$. */
export function maskHeaders(q: Question): Question {
  const headers = headersOf(q);
  return headers ? withHeaders(q, mapHeaders(headers, () => ENCRYPTED)) : q;
}

/** The headers to send, in clear. */
export function clearHeaders(variable: string, headers: Headers | undefined): Headers {
  return mapHeaders(headers ?? {}, (name, value) => (isEncryptedSecret(value) ? decryptSecret(headerPurpose(variable, name), value) : value));
}

/** Each stored header value through `recrypt` (regenerate_secret_key); how many there were. */
export function recryptHeaders(q: Question, recrypt: (purpose: string, stored: string) => string): { question: Question; count: number } {
  const headers = headersOf(q);
  if (!headers) return { question: q, count: 0 };
  let count = 0;
  const changed = mapHeaders(headers, (name, value) => {
    if (!isEncryptedSecret(value)) return value;
    count += 1;
    return recrypt(headerPurpose(q.variable, name), value);
  });
  return { question: count ? withHeaders(q, changed) : q, count };
}
