import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Resource } from '../../src/api/resource.ts';
import { namedUrlKey } from '../../src/api/named-url.ts';

/** A resource named by its own fields alone (no references to follow). */
const named = (...fields: string[]) => ({ namedUrl: fields, fields: Object.fromEntries(fields.map((f) => [f, { column: f }])) }) as unknown as Resource;
const noRefs = { get: () => undefined, resource: (name: string): Resource => { throw new Error(`no reference to ${name} here`); } };

describe('named URLs (src/api/named-url.ts)', () => {
  it('join own values with "+" and encode each as AWX does', () => {
    assert.equal(namedUrlKey(named('name'), { id: 1, name: 'Default' }, noRefs), 'Default');
    assert.equal(namedUrlKey(named('name', 'kind'), { id: 1, name: 'Machine', kind: 'ssh' }, noRefs), 'Machine+ssh');
    assert.equal(namedUrlKey(named('name'), { id: 1, name: 'a+b' }, noRefs), 'a[+]b', 'a "+" inside a value');
    assert.equal(namedUrlKey(named('name'), { id: 1, name: 'web/1?x=y&z;@:' }, noRefs), 'web%2F1%3Fx%3Dy%26z%3B%40%3A');
    assert.equal(namedUrlKey(named('name'), { id: 1, name: 'two words #1 100%' }, noRefs), 'two%20words%20%231%20100%25');
    assert.equal(namedUrlKey(named('name'), { id: 1, name: "it's (ok)!" }, noRefs), "it's%20(ok)!");
  });

  it('answer none when a value is missing or the resource has no named URL', () => {
    assert.equal(namedUrlKey(named('name', 'kind'), { id: 1, name: 'Machine', kind: null }, noRefs), null);
    assert.equal(namedUrlKey({ fields: {} } as unknown as Resource, { id: 1, name: 'x' }, noRefs), null);
  });
});
