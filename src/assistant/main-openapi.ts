/**
 * The main service's OpenAPI document, part of what the assistant indexes (its API reference). It
 * holds no data, but the main service serves it only to signed-in callers: the assistant reads it
 * with the credentials of an index request (a superuser's), or asks the process that started it.
 */
import { credentialHeaders, type CallerCredentials } from './callers.ts';

export type OpenApiDocument = Record<string, unknown>;

const isDocument = (value: unknown): value is OpenApiDocument =>
  !!value && typeof value === 'object' && typeof (value as { paths?: unknown }).paths === 'object';

export class MainOpenApi {
  private document: OpenApiDocument | null = null;

  /** `ask`: another way to get it when none was read yet (the parent process of `drover serve`). */
  constructor(private readonly mainUrl: string, private readonly ask?: () => Promise<unknown>) {}

  /** Reads the document again with these credentials; keeps the one it had when that fails. */
  async refresh(credentials: CallerCredentials): Promise<void> {
    try {
      // As the credentials check: the caller's credentials are not carried through a redirect.
      const res = await fetch(`${this.mainUrl}/api/v2/openapi.json`, { headers: credentialHeaders(credentials), redirect: 'manual', signal: AbortSignal.timeout(30_000) });
      const body: unknown = res.ok ? await res.json() : null;
      if (isDocument(body)) this.document = body;
    } catch {
      // The last document read, if any, serves.
    }
  }

  /** The last document read, or null when there is none. */
  async get(): Promise<OpenApiDocument | null> {
    if (!this.document && this.ask) {
      const answer = await this.ask().catch(() => null);
      if (isDocument(answer)) this.document = answer;
    }
    return this.document;
  }
}
