import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { descend, jsonTextTooDeep, MAX_JSON_DEPTH, nestsDeeperThan, TooDeepError } from '../../src/db/json-depth.ts';

const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

describe('JSON depth (src/db/json-depth.ts)', () => {
  it('finds text nested past the limit without parsing it', () => {
    assert.equal(jsonTextTooDeep(nested(MAX_JSON_DEPTH)), false);
    assert.equal(jsonTextTooDeep(nested(MAX_JSON_DEPTH + 1)), true);
    assert.equal(jsonTextTooDeep('{"a": {"b": [1, 2]}}', 2), true);
    assert.equal(jsonTextTooDeep('{"a": {"b": 1}}', 2), false);
    // A megabyte of brackets is answered at once, where a parser or a recursive walker would run out of stack.
    assert.equal(jsonTextTooDeep('['.repeat(1_000_000)), true);
  });

  it('does not count brackets inside strings, escaped quotes included', () => {
    assert.equal(jsonTextTooDeep(JSON.stringify({ text: '[[[[[[[[[[' }), 2), false);
    assert.equal(jsonTextTooDeep(JSON.stringify({ text: 'say \\"[[[[[[\\"' }), 2), false);
  });

  it('finds parsed values nested past the limit without recursion', () => {
    assert.equal(nestsDeeperThan(JSON.parse(nested(MAX_JSON_DEPTH))), false);
    assert.equal(nestsDeeperThan(JSON.parse(nested(MAX_JSON_DEPTH + 1))), true);
    assert.equal(nestsDeeperThan({ a: [{ b: 1 }] }, 2), true);
    assert.equal(nestsDeeperThan('[[[[', 1), false, 'a string is no nesting');
  });

  it('stops a recursive walker at the limit', () => {
    assert.equal(descend(0), 1);
    assert.throws(() => descend(MAX_JSON_DEPTH), TooDeepError);
  });
});
