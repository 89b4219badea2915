import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_JSON_DEPTH, TOO_DEEP } from '../../src/db/json-depth.ts';
import { parseVariables, variablesProblem, yamlTooDeep } from '../../src/inventory/variables.ts';

describe('variables text (src/inventory/variables.ts)', () => {
  it('reads JSON and YAML as Ansible does (YAML 1.1 booleans, merges, the last of repeated keys)', () => {
    assert.deepEqual(parseVariables('{"a": 1}'), { a: 1 });
    assert.deepEqual(parseVariables('a: yes\nb: off\nc: y'), { a: true, b: false, c: 'y' });
    assert.deepEqual(parseVariables('base: &b {x: 1}\nmerged:\n  <<: *b\n  y: 2'), { base: { x: 1 }, merged: { x: 1, y: 2 } });
    assert.deepEqual(parseVariables('a: 1\na: 2'), { a: 2 });
  });

  it('answers {} for text that is empty, not a mapping or not readable', () => {
    for (const text of ['', null, undefined, '---', '[1, 2]', 'just text', '{: nope']) assert.deepEqual(parseVariables(text), {}, String(text));
  });

  it('says what is wrong with text that cannot be variables', () => {
    assert.equal(variablesProblem('a: 1'), null);
    assert.equal(variablesProblem('---'), null);
    assert.equal(variablesProblem('[1, 2]'), 'Must be valid JSON or YAML.');
    assert.equal(variablesProblem(`a: ${'['.repeat(MAX_JSON_DEPTH + 1)}`), TOO_DEEP);
  });

  it('judges YAML nesting from its tokens, before parsing', () => {
    const indented = (depth: number) => Array.from({ length: depth }, (_, i) => `${'  '.repeat(i)}k${i}:`).join('\n') + ' 1';
    assert.equal(yamlTooDeep(indented(10), 10), false);
    assert.equal(yamlTooDeep(indented(11), 10), true);
    assert.equal(yamlTooDeep('a: |\n  [[[[[[[[\n', 2), false, 'a block scalar is text, not structure');
  });
});
