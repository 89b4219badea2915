/** Where a request came from, as audit events record it. */
export interface AuditClient {
  remoteAddr?: string;
  userAgent?: string;
}
