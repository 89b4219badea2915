/**
 * A template's related lists (credentials/, labels/, instance_groups/) as the form edits them, and
 * how the form brings the server's lists to what was chosen after saving the template: AWX's UI
 * does the same (its form saves the template, then associates and disassociates).
 */
import { http, withQuery, type Page } from '../../../api/client';
import type { FieldOf, ResourceObject } from '../../../api/types';
import type { RelatedList } from './template-layout';

export type Credential = ResourceObject<'credentials'>;
export type CredentialType = ResourceObject<'credential_types'>;
export type InstanceGroup = ResourceObject<'instance_groups'>;

/** A label as chosen in the form: one of the organization's, or a name typed to be created when saved. */
export interface ChosenLabel {
  id?: number;
  name: string;
}

export interface Chosen {
  credentials: Credential[];
  labels: ChosenLabel[];
  instance_groups: InstanceGroup[];
}

export const NOTHING_CHOSEN: Chosen = { credentials: [], labels: [], instance_groups: [] };

/** Credential kinds a playbook run takes (source control, registry and token credentials are not). */
type CredentialKind = FieldOf<'credential_types', 'kind'>;
export const RUN_CREDENTIAL_KINDS = new Set<CredentialKind>(['ssh', 'vault', 'net', 'cloud', 'kubernetes', 'insights']);

const everything = async <T>(url: string): Promise<T[]> => (await http.get<Page<T>>(withQuery(url, { page_size: 200 }))).results;

/** What the template has now, in the server's order (instance groups in the order they are tried). */
export async function loadChosen(related: Record<string, string>, lists: RelatedList[]): Promise<Chosen> {
  const [credentials, labels, groups] = await Promise.all([
    lists.includes('credentials') ? everything<Credential>(related.credentials) : [],
    lists.includes('labels') ? everything<ResourceObject<'labels'>>(related.labels) : [],
    lists.includes('instance_groups') ? everything<InstanceGroup>(related.instance_groups) : [],
  ]);
  return { credentials, labels: labels.map(({ id, name }) => ({ id, name })), instance_groups: groups };
}

/** A credential's vault id ('' when it has none or is no vault credential). */
export const vaultIdOf = (credential: Credential): string => {
  const inputs = credential.inputs as Record<string, unknown> | null;
  return typeof inputs?.vault_id === 'string' ? inputs.vault_id : '';
};

/**
 * The credentials with `added` in the slot it fills, as AWX's credential lookup: it replaces the
 * credential of its type, or for a vault credential the one with the same vault id.
 */
export function withCredential(chosen: Credential[], added: Credential, kindOf: (typeId: number) => string | undefined): Credential[] {
  const vault = kindOf(added.credential_type) === 'vault';
  const sameSlot = (c: Credential) => c.credential_type === added.credential_type && (!vault || vaultIdOf(c) === vaultIdOf(added));
  return [...chosen.filter((c) => c.id !== added.id && !sameSlot(c)), added];
}

const post = (url: string, body: Record<string, unknown>) => http.post<unknown>(url, body);

/** Errors of a sync, by the related list they concern. */
export class SyncError extends Error {
  constructor(readonly list: RelatedList, readonly cause: unknown) {
    super(`Saving ${list} failed`);
  }
}

async function step(list: RelatedList, work: () => Promise<unknown>): Promise<void> {
  try {
    await work();
  } catch (err) {
    throw new SyncError(list, err);
  }
}

/**
 * Brings the template's lists from `before` to `after`: removals first (so a credential can take
 * the slot of the one it replaces), then additions; new labels are attached by name with the
 * organization (POST labels/ {name, organization}), which creates them. Instance groups keep
 * their order: when it changed, all are detached and attached again in the new order, as AWX's UI.
 */
export async function syncChosen(related: Record<string, string>, lists: RelatedList[], before: Chosen, after: Chosen, organization: number | null): Promise<void> {
  if (lists.includes('credentials')) {
    const kept = new Set(after.credentials.map((c) => c.id));
    const had = new Set(before.credentials.map((c) => c.id));
    for (const c of before.credentials.filter((c) => !kept.has(c.id))) await step('credentials', () => post(related.credentials, { id: c.id, disassociate: true }));
    for (const c of after.credentials.filter((c) => !had.has(c.id))) await step('credentials', () => post(related.credentials, { id: c.id }));
  }
  if (lists.includes('labels')) {
    const kept = new Set(after.labels.map((l) => l.id).filter(Boolean));
    const had = new Set(before.labels.map((l) => l.id));
    for (const l of before.labels.filter((l) => !kept.has(l.id))) await step('labels', () => post(related.labels, { id: l.id, disassociate: true }));
    for (const l of after.labels.filter((l) => !l.id || !had.has(l.id))) {
      await step('labels', () => post(related.labels, l.id ? { id: l.id } : { name: l.name, organization }));
    }
  }
  if (lists.includes('instance_groups')) {
    const order = (groups: InstanceGroup[]) => groups.map((g) => g.id).join(',');
    if (order(before.instance_groups) !== order(after.instance_groups)) {
      for (const g of before.instance_groups) await step('instance_groups', () => post(related.instance_groups, { id: g.id, disassociate: true }));
      for (const g of after.instance_groups) await step('instance_groups', () => post(related.instance_groups, { id: g.id }));
    }
  }
}
