/**
 * AWS Secrets Manager (AWX's aws_secretsmanager.py through boto3): GetSecretValue, a JSON request
 * signed with Signature Version 4.
 */
import { createHash, createHmac } from 'node:crypto';
import { call, jsonOf, LookupFailed, storeEndpoint, str, type LookupArgs, type LookupContext } from './lookup.ts';

const SERVICE = 'secretsmanager';
const sha256 = (data: string) => createHash('sha256').update(data).digest('hex');
const hmac = (key: Buffer | string, data: string) => createHmac('sha256', key).update(data).digest();

/** The Authorization header of a SigV4-signed request; `headers` are all signed (lower-case names). */
export function sigV4Authorization(o: {
  method: string; path: string; headers: Record<string, string>; body: string; region: string; service: string; accessKey: string; secretKey: string; amzDate: string;
}): string {
  const names = Object.keys(o.headers).sort();
  const canonicalHeaders = names.map((n) => `${n}:${o.headers[n]!.trim()}\n`).join('');
  const signedHeaders = names.join(';');
  const canonicalRequest = [o.method, o.path, '', canonicalHeaders, signedHeaders, sha256(o.body)].join('\n');
  const day = o.amzDate.slice(0, 8);
  const scope = `${day}/${o.region}/${o.service}/aws4_request`;
  const toSign = ['AWS4-HMAC-SHA256', o.amzDate, scope, sha256(canonicalRequest)].join('\n');
  const key = hmac(hmac(hmac(hmac(`AWS4${o.secretKey}`, day), o.region), o.service), 'aws4_request');
  return `AWS4-HMAC-SHA256 Credential=${o.accessKey}/${scope}, SignedHeaders=${signedHeaders}, Signature=${createHmac('sha256', key).update(toSign).digest('hex')}`;
}

export async function awsSecretsManagerLookup(args: LookupArgs, context: LookupContext): Promise<string> {
  const region = str(args, 'region_name');
  if (!/^[a-z0-9-]+$/.test(region)) throw new LookupFailed(`Invalid region ${region}.`);
  const url = new URL(storeEndpoint(`https://${SERVICE}.${region}.amazonaws.com/`, context));
  const body = JSON.stringify({ SecretId: str(args, 'secret_name') });
  const amzDate = new Date().toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
  const headers = { 'content-type': 'application/x-amz-json-1.1', host: url.host, 'x-amz-date': amzDate, 'x-amz-target': 'secretsmanager.GetSecretValue' };
  const authorization = sigV4Authorization({
    method: 'POST', path: url.pathname, headers, body, region, service: SERVICE, accessKey: str(args, 'aws_access_key'), secretKey: str(args, 'aws_secret_key'), amzDate,
  });
  const { host: _host, ...sent } = headers;
  const answer = jsonOf(await call(context, { url: url.toString(), method: 'POST', headers: { ...sent, authorization }, body }));
  if (typeof answer.SecretString === 'string') return answer.SecretString;
  if (typeof answer.SecretBinary === 'string') return Buffer.from(answer.SecretBinary, 'base64').toString('utf8');
  throw new LookupFailed(`Secret ${str(args, 'secret_name')} has no value.`);
}
