import type { Queryable, Row } from '../db/database.ts';
import { notFound } from './errors.ts';
import { getResource, type Resource } from './resource.ts';
import { ident } from './sql.ts';

/**
 * Resolves an id or a named URL (Ops++Default: the team "Ops" of the organization "Default")
 * to an id. Answers null when nothing matches.
 */
async function resolveNamed(db: Queryable, resource: Resource, key: string): Promise<number | null> {
  const spec = resource.namedUrl;
  if (!spec) return null;
  const parts = key.split('++');
  const last = spec[spec.length - 1];
  const refField = resource.fields[last]?.ref ? resource.fields[last] : null;
  const ownCount = refField ? spec.length - 1 : spec.length;
  if (parts.length < ownCount || (!refField && parts.length !== ownCount)) return null;
  const conditions: string[] = [];
  const values: unknown[] = [];
  spec.slice(0, ownCount).forEach((name, i) => {
    values.push(parts[i]);
    conditions.push(`${ident(resource.fields[name]?.column ?? name)}::text = $${values.length}`);
  });
  if (refField) {
    const rest = parts.slice(ownCount).join('++');
    if (rest === '') conditions.push(`${ident(refField.column)} IS NULL`);
    else {
      const refId = await resolveKey(db, getResource(refField.ref!), rest);
      if (refId === null) return null;
      values.push(refId);
      conditions.push(`${ident(refField.column)} = $${values.length}`);
    }
  }
  const rows = await db.query(`SELECT id FROM ${ident(resource.table)} WHERE ${conditions.join(' AND ')} LIMIT 2`, values);
  return rows.length === 1 ? rows[0].id : null;
}

const MAX_ID = 2_147_483_647;

async function resolveKey(db: Queryable, resource: Resource, key: string): Promise<number | null> {
  if (/^\d+$/.test(key)) {
    const id = Number(key);
    if (id > MAX_ID) return null;
    const rows = await db.query(`SELECT id FROM ${ident(resource.table)} WHERE id = $1`, [id]);
    if (rows.length) return id;
  }
  return resolveNamed(db, resource, key);
}

/** The row an id or a named URL names (an id first, as resolveKey), 404 when none. */
export async function loadByKeyOr404(db: Queryable, resource: Resource, key: string): Promise<Row> {
  const table = ident(resource.table);
  if (/^\d+$/.test(key)) {
    const id = Number(key);
    if (id > MAX_ID) throw notFound();
    // One query for the usual case: the id names a row, which is the answer.
    const [row] = await db.query(`SELECT * FROM ${table} WHERE id = $1`, [id]);
    if (row) return row;
  }
  const id = await resolveNamed(db, resource, key);
  const [row] = id === null ? [] : await db.query(`SELECT * FROM ${table} WHERE id = $1`, [id]);
  if (!row) throw notFound();
  return row;
}
