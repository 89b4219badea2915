import { ldapPasswordBackend } from '../ldap/ldap-login.ts';
import { radiusBackend } from '../radius/radius-backend.ts';
import type { PasswordBackend } from './password-backends.ts';

/** The password backends, in the order the password path asks them (AWX's: LDAP servers, then RADIUS). */
export const PASSWORD_BACKENDS: readonly PasswordBackend[] = [ldapPasswordBackend, radiusBackend];
