/**
 * The passkey ceremonies of the console (docs/webauthn.md): the API's begin answers the options,
 * @simplewebauthn/browser asks the authenticator (navigator.credentials), the API's complete
 * verifies what it answered. Errors are ApiErrors (the API's message) or PasskeyErrors (what the
 * browser or the authenticator refused, in words for the person at the keyboard).
 */
import {
  browserSupportsWebAuthn,
  startAuthentication,
  startRegistration,
  WebAuthnError,
  type AuthenticationResponseJSON,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
} from '@simplewebauthn/browser';
import { api, must } from './client';
import type { ApiAnswer, ApiBody, Me } from './types';

export type Passkey = ApiAnswer<'/api/v2/webauthn/credentials/'>['results'][number];

/** What the browser or the authenticator refused, said plainly. */
export class PasskeyError extends Error {}

/** Whether this page may use passkeys at all: a browser with WebAuthn, on a secure address. */
export const passkeysAvailable = (): boolean => browserSupportsWebAuthn();

/** What the browser's ceremony threw, as a PasskeyError. */
function plainly(err: unknown): PasskeyError {
  if (!(err instanceof Error)) return new PasskeyError(String(err));
  const code = err instanceof WebAuthnError ? err.code : undefined;
  const name = err instanceof WebAuthnError && err.cause instanceof Error ? err.cause.name : err.name;
  if (code === 'ERROR_INVALID_DOMAIN') {
    return new PasskeyError(`Passkeys need the service's host name in the address, not an IP address (${location.hostname}): open the console by its name.`);
  }
  if (code === 'ERROR_INVALID_RP_ID') {
    return new PasskeyError(`The service asked for passkeys of another host name than ${location.hostname}: open the console at the address the service answers by.`);
  }
  if (code === 'ERROR_AUTHENTICATOR_PREVIOUSLY_REGISTERED') return new PasskeyError('This authenticator already holds one of your passkeys.');
  if (code === 'ERROR_CEREMONY_ABORTED' || name === 'NotAllowedError' || name === 'AbortError') {
    return new PasskeyError('No passkey was used: the request was cancelled or timed out, or this device has no passkey for this site.');
  }
  if (name === 'SecurityError') return new PasskeyError(`The browser refused passkeys on this address: ${err.message}`);
  return new PasskeyError(err.message);
}

// The browser's responses copied into plain objects (the library types them as interfaces), as the API's body schemas take them.
const plainAttestation = (credential: RegistrationResponseJSON) => ({
  ...credential, response: { ...credential.response }, clientExtensionResults: { ...credential.clientExtensionResults },
});
const plainAssertion = (credential: AuthenticationResponseJSON) => ({
  ...credential, response: { ...credential.response }, clientExtensionResults: { ...credential.clientExtensionResults },
});

async function ask<T>(ceremony: () => Promise<T>): Promise<T> {
  try {
    return await ceremony();
  } catch (err) {
    throw plainly(err);
  }
}

/** Registers a passkey of the signed-in user, named `label` (the API names it "Passkey N" when blank). */
export async function registerPasskey(label: string) {
  const options = await must(api.POST('/api/v2/webauthn/register/begin/', { body: {} }));
  // The API's answer is the library's creation options (generateRegistrationOptions), as they are.
  const credential = await ask(() => startRegistration({ optionsJSON: options as unknown as PublicKeyCredentialCreationOptionsJSON }));
  const name = label.trim();
  const body = { credential: plainAttestation(credential), ...(name && { label: name }) };
  return must(api.POST('/api/v2/webauthn/register/complete/', { body: body satisfies ApiBody<'/api/v2/webauthn/register/complete/', 'post'> }));
}

/**
 * Authenticates with a passkey: the second factor of the signed-in session, or without a session a
 * sign-in, username-first when `username` is given, else with any passkey of this site
 * (usernameless). Answers the user as /api/v2/me/ lists him.
 */
export async function authenticateWithPasskey(username?: string): Promise<Me> {
  const begin = username ? { username } : {};
  const options = await must(api.POST('/api/v2/webauthn/authenticate/begin/', { body: begin satisfies ApiBody<'/api/v2/webauthn/authenticate/begin/', 'post'> }));
  const credential = await ask(() => startAuthentication({ optionsJSON: options as unknown as PublicKeyCredentialRequestOptionsJSON }));
  const body = { credential: plainAssertion(credential) };
  const me = await must(api.POST('/api/v2/webauthn/authenticate/complete/', { body: body satisfies ApiBody<'/api/v2/webauthn/authenticate/complete/', 'post'> }));
  return me as unknown as Me;
}
