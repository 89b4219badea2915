import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../../src/api/errors.ts';
import { checkFilterRegex, checkFilterRegexes, MAX_FILTER_REGEX_COST, MAX_FILTER_REGEX_LENGTH, MAX_FILTER_REGEXES } from '../../src/api/regex-guard.ts';

/** The 400 detail a check throws. */
function refusal(check: () => unknown): string {
  try {
    check();
  } catch (err) {
    assert.ok(err instanceof ApiError, String(err));
    assert.equal(err.status, 400);
    return String(err.body.detail);
  }
  assert.fail('accepted');
}

describe('filter regular expressions (src/api/regex-guard.ts)', () => {
  it('accepts the patterns people write and answers their cost', () => {
    assert.equal(checkFilterRegex('^web-\\d+$', 'name__regex'), 5);
    assert.equal(checkFilterRegex('^[0-9]{1,3}\\.[0-9]{1,3}$', 'name__regex'), 7);
    assert.equal(checkFilterRegex('(?:prod|stage)-[a-z]+', 'name__iregex'), 11);
    assert.equal(checkFilterRegex('***=(a+)+', 'name__regex'), 5, 'a literal string costs its length');
  });

  it('refuses what would make PostgreSQL build or backtrack for seconds, naming the filter', () => {
    assert.match(refusal(() => checkFilterRegex('(a)\\1', 'name__regex')), /^name__regex: back references/);
    assert.match(refusal(() => checkFilterRegex('web(?=1)', 'name__regex')), /lookahead and lookbehind/);
    assert.match(refusal(() => checkFilterRegex('(?<!a)b', 'name__regex')), /lookahead and lookbehind/);
    assert.match(refusal(() => checkFilterRegex('(a+)+', 'name__regex')), /a repeated group may not itself hold a repetition/);
    assert.match(refusal(() => checkFilterRegex('(a|b)*', 'name__regex')), /a repeated group may not itself hold/);
    assert.match(refusal(() => checkFilterRegex('a{101}', 'name__regex')), /repetition counts above 100/);
    assert.match(refusal(() => checkFilterRegex('a'.repeat(MAX_FILTER_REGEX_LENGTH + 1), 'name__regex')), new RegExp(`at most ${MAX_FILTER_REGEX_LENGTH} characters`));
  });

  it('bounds the cost of a request’s patterns together', () => {
    const costly = '.{0,100}'.repeat(6); // 600
    assert.equal(checkFilterRegex(costly, 'a__regex'), 600);
    checkFilterRegexes([['a__regex', costly]]);
    const detail = refusal(() => checkFilterRegexes([['a__regex', costly], ['b__regex', costly]]));
    assert.match(detail, new RegExp(`^b__regex: .* total to 1200; at most ${MAX_FILTER_REGEX_COST}`));
    const many = Array.from({ length: MAX_FILTER_REGEXES + 1 }, (_, i): [string, string] => [`f${i}__regex`, 'a']);
    assert.equal(refusal(() => checkFilterRegexes(many)), `A request may use at most ${MAX_FILTER_REGEXES} regular expression filters.`);
  });
});
