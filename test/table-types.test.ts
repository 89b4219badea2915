import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { generateTableTypes, rowTypeName, TABLES_FILE } from '../scripts/table-types.ts';

describe('table types (src/db/tables.ts)', () => {
  it('match the migrations: run `npm run db:types` after adding one', async () => {
    const committed = await readFile(TABLES_FILE, 'utf8');
    // Compared as text, so a failure shows the lines that differ.
    assert.equal(committed, await generateTableTypes(), 'src/db/tables.ts is out of date: run `npm run db:types`');
  });

  it('name a row type after its table, in the singular', () => {
    assert.equal(rowTypeName('unified_jobs'), 'UnifiedJobRow');
    assert.equal(rowTypeName('inventories'), 'InventoryRow');
    assert.equal(rowTypeName('job_host_summaries'), 'JobHostSummaryRow');
    assert.equal(rowTypeName('activity_stream'), 'ActivityStreamRow');
    assert.equal(rowTypeName('statuses'), 'StatusRow');
    assert.equal(rowTypeName('group_children'), 'GroupChildrenRow');
  });
});
