import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { RESOURCES } from '../../src/composition/resources.ts';
import { ORGANIZATION_TABLES } from '../../src/api/tenant-boundary.ts';

describe('who owns an object, for the tenant boundary (src/api/tenant-boundary.ts)', () => {
  it('knows the table of every resource created in an organization, so none escapes the boundary', () => {
    const missing: string[] = [];
    for (const resource of RESOURCES) {
      const organization = resource.fields.organization;
      if (organization?.ref !== 'organization' || organization.readOnly) continue;
      if (ORGANIZATION_TABLES[resource.name] !== resource.table) missing.push(`${resource.name} (${resource.table})`);
    }
    assert.deepEqual(missing, [], 'resources with a writable organization field belong in ORGANIZATION_TABLES');
  });

  it('names only tables of declared resources', () => {
    const tables = new Map(RESOURCES.map((r) => [r.name, r.table]));
    for (const [name, table] of Object.entries(ORGANIZATION_TABLES)) assert.equal(tables.get(name), table, name);
  });
});
