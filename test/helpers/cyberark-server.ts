/**
 * A stand-in CyberArk Central Credential Provider on 127.0.0.1:
 * GET /<web service>/api/Accounts?AppId=..&Query=..&QueryFormat=.. answers the account as JSON
 * ({Content, UserName, Address}), 403 for an unknown application, 404 for no account.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface CyberArkServer {
  url: string;
  requests: string[];
  close(): Promise<void>;
}

export async function startCyberArkServer(appId: string, accounts: Record<string, { Content: string; UserName: string; Address: string }>): Promise<CyberArkServer> {
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    requests.push(req.url ?? '');
    const url = new URL(req.url ?? '/', 'http://ccp');
    const answer = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.method !== 'GET' || !/^\/[^/]+\/api\/Accounts$/.test(url.pathname)) return answer(404, { ErrorCode: 'APPAP004E' });
    if (url.searchParams.get('AppId') !== appId) return answer(403, { ErrorCode: 'APPAP227E', ErrorMsg: 'App not authorized' });
    const account = accounts[url.searchParams.get('Query') ?? ''];
    if (!account) return answer(404, { ErrorCode: 'APPAP004E', ErrorMsg: 'Password object matching query was not found' });
    answer(200, account);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
