import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Compile } from 'typebox/compile';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { acceptedSchema } from '../src/api/field-schemas.ts';
import { readField } from '../src/api/read-field.ts';

/** Values of every JSON type, and the texts AWX's serializers read as numbers, booleans, dates and ids. */
const PROBES: unknown[] = [
  5, -1, 0, 1, 2, 1.5, 2147483648, '5', ' 5', '5.0', '-3', '007', 'x', '', ' ', null, true, false, 'true', 'True', 'false', 'yes',
  [], [1], ['a'], [''], {}, { a: 1 }, '2024-01-01', '2024-01-01T10:00:00Z', '2024-01-01 10:00', 'a'.repeat(2000), '$encrypted$',
  'read write', 'run', 'check', 'http://example.com/x', '---', 'a: 1', '{"a": 1}', 'quay.io/ansible/awx-ee:latest',
  [{ jinja2_expression: 'event.a', description: null }], [{ action_type: 'launch_job_template', target_id: 1, extra_vars: null, description: null }],
];

/**
 * A resource body's schema (field-schemas.ts) refuses up front what a field's declaration could
 * never take, and nothing it takes: for every writable field of every resource of the service, a
 * value the field's schema refuses is one its declaration refuses too (so the words of the
 * refusal are the declaration's). The schema may take more (patterns, ranges of digits given as
 * text): the declaration reads those after it.
 */
describe('body schemas of resources', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  it('refuse no value a field declaration takes', () => {
    const wrongly: string[] = [];
    let refused = 0;
    for (const resource of t.services.resources.all) {
      for (const [name, field] of Object.entries(resource.fields)) {
        if (field.readOnly) continue;
        const schema = Compile(acceptedSchema(field) as never);
        for (const value of PROBES) {
          if (schema.Check(value)) continue;
          refused++;
          const reading = readField(field, value, null);
          if (!('problem' in reading)) wrongly.push(`${resource.name}.${name} ${JSON.stringify(value).slice(0, 60)}`);
        }
      }
    }
    assert.deepEqual(wrongly, []);
    assert.ok(refused > 1000, `${refused} values refused`);
  });
});
