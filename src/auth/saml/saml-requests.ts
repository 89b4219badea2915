/**
 * What makes a SAML answer acceptable once, for the browser that asked: the AuthnRequests the
 * service issued (bound to the identity provider and to the state the browser holds) and the
 * assertions already used. Both live in the database so every node sees them.
 */
import { createHash } from 'node:crypto';
import type { CacheItem, CacheProvider } from '@node-saml/node-saml';
import type { Queryable } from '../../db/database.ts';

/** How long the browser has to come back from the identity provider. */
export const REQUEST_LIFETIME_MS = 10 * 60 * 1000;

export const hashState = (state: string) => createHash('sha256').update(state).digest('hex');

/**
 * node-saml's store of request ids, for one IdP and one browser state: a request issued through
 * it is found only by an answer coming back with the same IdP and state.
 */
export function requestStore(db: Queryable, idp: string, state: string): CacheProvider {
  const stateHash = hashState(state);
  return {
    async saveAsync(id: string, value: string): Promise<CacheItem | null> {
      await db.query(`DELETE FROM saml_requests WHERE expires <= now()`);
      await db.query(
        `INSERT INTO saml_requests (id, idp, state_hash, expires) VALUES ($1, $2, $3, now() + make_interval(secs => $4))
         ON CONFLICT (id) DO NOTHING`,
        [id, idp, stateHash, REQUEST_LIFETIME_MS / 1000],
      );
      return { value, createdAt: Date.now() };
    },
    async getAsync(id: string): Promise<string | null> {
      const [row] = await db.query<{ created: Date }>(
        `SELECT created FROM saml_requests WHERE id = $1 AND idp = $2 AND state_hash = $3 AND expires > now()`,
        [id, idp, stateHash],
      );
      return row ? new Date(row.created).toISOString() : null;
    },
    async removeAsync(id: string | null): Promise<string | null> {
      if (id === null) return null;
      const [row] = await db.query<{ id: string }>(`DELETE FROM saml_requests WHERE id = $1 AND idp = $2 RETURNING id`, [id, idp]);
      return row?.id ?? null;
    },
  };
}

/**
 * Marks an assertion used; answers false when it was used before (a replay, or the same answer
 * posted twice at once: the primary key lets one of them through).
 */
export async function useAssertionOnce(db: Queryable, idp: string, assertionId: string, expires: Date): Promise<boolean> {
  await db.query(`DELETE FROM saml_used_assertions WHERE expires <= now()`);
  const rows = await db.query(
    `INSERT INTO saml_used_assertions (idp, assertion_id, expires) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING assertion_id`,
    [idp, assertionId, expires],
  );
  return rows.length === 1;
}
