/**
 * Bodies and answers of the WebAuthn ceremonies (docs/webauthn.md). A credential is what
 * @simplewebauthn/browser's startRegistration and startAuthentication answer a page
 * (RegistrationResponseJSON, AuthenticationResponseJSON): base64url text, checked here for shape
 * and size; the library verifies the rest.
 */
import { Type } from 'typebox';
import { OPTIONS_RESPONSE } from '../../api/action-schemas.ts';
import type { MethodSchema } from '../../api/route-schemas.ts';
import { NOT_BLANK } from '../../api/schema-errors.ts';

const base64url = (maxLength: number, description: string) =>
  Type.String({ pattern: '^[A-Za-z0-9_-]+={0,2}$', maxLength, description, errorMessage: 'Expected base64url text.' });

const CredentialId = base64url(1366, 'The credential id, base64url.');
const ClientDataJSON = base64url(8192, 'clientDataJSON, base64url.');
const ClientExtensionResults = Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'Ignored.' }));
const Attachment = Type.Optional(Type.String({ maxLength: 32 }));
const PublicKey = Type.Literal('public-key', { errorMessage: 'Expected "public-key".' });

export const RegistrationCredential = Type.Object({
  id: CredentialId,
  rawId: CredentialId,
  type: PublicKey,
  response: Type.Object({
    clientDataJSON: ClientDataJSON,
    attestationObject: base64url(65536, 'attestationObject, base64url.'),
    transports: Type.Optional(Type.Array(Type.String({ pattern: '^[a-z-]{1,32}$' }), { maxItems: 10 })),
  }, { additionalProperties: true }),
  clientExtensionResults: ClientExtensionResults,
  authenticatorAttachment: Attachment,
}, { additionalProperties: true, description: "What the browser's navigator.credentials.create() answered (RegistrationResponseJSON)." });

export const AuthenticationCredential = Type.Object({
  id: CredentialId,
  rawId: CredentialId,
  type: PublicKey,
  response: Type.Object({
    clientDataJSON: ClientDataJSON,
    authenticatorData: base64url(8192, 'authenticatorData, base64url.'),
    signature: base64url(1024, 'The signature, base64url.'),
    userHandle: Type.Optional(base64url(128, 'The user handle, base64url (discoverable credentials).')),
  }, { additionalProperties: true }),
  clientExtensionResults: ClientExtensionResults,
  authenticatorAttachment: Attachment,
}, { additionalProperties: true, description: "What the browser's navigator.credentials.get() answered (AuthenticationResponseJSON)." });

export const Label = Type.String({ pattern: NOT_BLANK, maxLength: 100, description: 'A name for the passkey ("Work laptop").' });

export const RegisterCompleteBody = Type.Object({ credential: RegistrationCredential, label: Type.Optional(Label) });
export const AuthenticateBeginBody = Type.Object({
  username: Type.Optional(Type.String({ pattern: NOT_BLANK, maxLength: 150, description: 'Username-first sign-in: the passkeys of this user. Without it, any discoverable passkey (usernameless).' })),
});
export const AuthenticateCompleteBody = Type.Object({ credential: AuthenticationCredential });

const Detail = Type.Object({ detail: Type.String() });
const Options = Type.Object({ challenge: Type.String(), timeout: Type.Integer() }, { additionalProperties: true });
const Me = Type.Object({ id: Type.Integer(), username: Type.String(), second_factor_pending: Type.Boolean() }, { additionalProperties: true, description: 'The user, as GET /api/v2/me/ lists him.' });
const howTo = (detail: string): MethodSchema => ({ summary: 'How to use this endpoint', response: { 200: Detail }, description: detail });

export const registerBeginSchemas: Record<string, MethodSchema> = {
  GET: howTo('POST here to begin registering a passkey.'),
  POST: {
    summary: 'Begin registering a passkey',
    description: 'Answers the options for navigator.credentials.create() (PublicKeyCredentialCreationOptionsJSON). Needs a browser session.',
    body: Type.Object({}),
    response: { 200: Options, 400: Detail, 401: Detail, 403: Detail },
  },
  OPTIONS: OPTIONS_RESPONSE,
};

export const registerCompleteSchemas: Record<string, MethodSchema> = {
  GET: howTo('POST the credential the browser created here.'),
  POST: {
    summary: 'Complete registering a passkey',
    body: RegisterCompleteBody,
    checkBody: true,
    response: { 201: Type.Object({ id: Type.Integer(), label: Type.String() }, { additionalProperties: true, description: 'The registered credential.' }), 400: Detail, 401: Detail, 403: Detail },
  },
  OPTIONS: OPTIONS_RESPONSE,
};

export const authenticateBeginSchemas: Record<string, MethodSchema> = {
  GET: howTo('POST here (with a username, or none) to begin signing in with a passkey, or to pass the second factor.'),
  POST: {
    summary: 'Begin a passkey sign-in or second factor',
    description: 'Answers the options for navigator.credentials.get() (PublicKeyCredentialRequestOptionsJSON). With a session: its second factor. Without: a passwordless sign-in.',
    body: AuthenticateBeginBody,
    checkBody: true,
    response: { 200: Options, 400: Detail, 429: Detail },
  },
  OPTIONS: OPTIONS_RESPONSE,
};

export const authenticateCompleteSchemas: Record<string, MethodSchema> = {
  GET: howTo('POST the assertion the browser made here.'),
  POST: {
    summary: 'Complete a passkey sign-in or second factor',
    description: 'Verifies the assertion. With a session: the session passes its second factor (under a new session key). Without: signs in, setting the cookies a password login sets.',
    body: AuthenticateCompleteBody,
    checkBody: true,
    response: { 200: Me, 400: Detail, 429: Detail },
  },
  OPTIONS: OPTIONS_RESPONSE,
};
