import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from './helpers/app.ts';

describe('smoke', () => {
  let t: TestApp;
  before(async () => (t = await createTestApp()));
  after(() => t.close());

  it('lists the Default organization', async () => {
    const res = await t.get('/api/v2/organizations/');
    assert.equal(res.status, 200);
    assert.equal(res.body.results[0].name, 'Default');
  });
});
