// The parts of oidc-provider (no published types) the test provider uses.
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';
  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown> & { findAccount?: (ctx: unknown, id: string) => unknown });
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
  }
}
