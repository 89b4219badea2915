import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, newOrg, type TestApp } from './helpers/app.ts';

describe('ACTIVITY_STREAM_ENABLED', () => {
  let t: TestApp;
  before(async () => (t = await createTestApp()));
  after(() => t.close());

  const countFor = async (name: string) =>
    (await t.get(`/api/v2/activity_stream/?object1=organization&changes__icontains=${encodeURIComponent(name)}`)).body.count;

  it('stops recording while false and records again when true', async () => {
    assert.equal((await t.patch('/api/v2/settings/system/', { ACTIVITY_STREAM_ENABLED: false })).status, 200);
    await newOrg(t, { name: 'Quiet' });
    assert.equal(await countFor('Quiet'), 0);

    assert.equal((await t.patch('/api/v2/settings/system/', { ACTIVITY_STREAM_ENABLED: true })).status, 200);
    await newOrg(t, { name: 'Loud' });
    assert.equal(await countFor('Loud'), 1);
  });
});
