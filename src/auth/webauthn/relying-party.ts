/**
 * Who the service is to an authenticator: its RP ID is the host name the request came to (no
 * port), and the origins it accepts in a response are those the CSRF check trusts
 * (SVC_CSRF_TRUSTED_ORIGINS, the CSRF_TRUSTED_ORIGINS setting, and the origin the request was sent
 * to), so a page of any other site cannot have a passkey answer for it.
 */
import type { FastifyRequest } from 'fastify';
import { decodeClientDataJSON } from '@simplewebauthn/server/helpers';
import type { Services } from '../../api/context.ts';
import { PRODUCT_NAME } from '../../version.ts';
import { originTrusted } from '../csrf.ts';
import { CeremonyRefused } from './refusals.ts';

export interface RelyingParty {
  id: string;
  name: string;
}

export const relyingParty = (request: FastifyRequest): RelyingParty => ({ id: request.hostname, name: PRODUCT_NAME });

export interface ClientData {
  challenge: string;
  origin: string;
}

/** What the browser says it signed for: the challenge and the page's origin (the library checks the rest). */
export function readClientData(clientDataJSON: string): ClientData {
  let data: { challenge?: unknown; origin?: unknown };
  try {
    data = decodeClientDataJSON(clientDataJSON);
  } catch {
    throw new CeremonyRefused('malformed', 'The credential\'s client data cannot be read.');
  }
  if (typeof data?.challenge !== 'string' || typeof data.origin !== 'string' || !data.challenge || data.challenge.length > 512) {
    throw new CeremonyRefused('malformed', 'The credential\'s client data names no challenge or origin.');
  }
  return { challenge: data.challenge, origin: data.origin };
}

/** The origin of a response, when the service trusts it; refused otherwise. */
export function acceptedOrigin(services: Services, request: FastifyRequest, clientData: ClientData): string {
  if (!originTrusted(services, request, clientData.origin)) {
    throw new CeremonyRefused('untrusted_origin', `The credential was used on ${clientData.origin.slice(0, 200)}, which is not an origin of this service.`);
  }
  return clientData.origin;
}
