import { ApiError } from '../../api/errors.ts';

/**
 * Why a ceremony was refused, for its audit event: the answer is 400 {detail}, the reason a word
 * SIEM rules can match.
 */
export type RefusalReason =
  | 'malformed'
  | 'no_ceremony'
  | 'unknown_challenge'
  | 'expired_challenge'
  | 'untrusted_origin'
  | 'unknown_credential'
  | 'wrong_user'
  | 'inactive'
  | 'verification_failed'
  | 'sign_count'
  | 'already_registered'
  | 'too_many_credentials';

export class CeremonyRefused extends ApiError {
  constructor(
    readonly reason: RefusalReason,
    detail: string,
  ) {
    super(400, { detail });
  }
}
