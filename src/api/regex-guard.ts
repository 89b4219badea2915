import { badRequest } from './errors.ts';

/** Longest pattern a __regex or __iregex filter may use. */
export const MAX_FILTER_REGEX_LENGTH = 200;
/** Largest count in a bounded repetition ({m}, {m,}, {m,n}). */
export const MAX_FILTER_REGEX_COUNT = 100;

/** Most __regex and __iregex filters one request may use. */
export const MAX_FILTER_REGEXES = 10;

/**
 * Refuses, before the database sees them, the regular expressions whose cost can explode:
 * PostgreSQL compiles a repeated group that itself repeats ((a{1,100}){1,100}) into an
 * automaton that takes seconds to build, back references make matching backtrack, and a
 * lookahead or lookbehind is tried again at every position (quadratic in the text's length). The
 * embedded database runs in this process and cannot stop a query, so a pattern like that would
 * stall every request until it ended. Patterns are PostgreSQL's (ARE) syntax; anything this scan
 * does not understand is left for the database to accept or reject as invalid.
 */
export function checkFilterRegex(pattern: string, key: string): void {
  if (pattern.length > MAX_FILTER_REGEX_LENGTH) {
    throw badRequest(`${key}: a regular expression in a filter may be at most ${MAX_FILTER_REGEX_LENGTH} characters long.`);
  }
  // ***= makes the rest a literal string.
  if (pattern.startsWith('***=')) return;
  // Per open group: whether it holds a repetition or alternatives so far.
  const groups: boolean[] = [false];
  let last: 'none' | 'atom' | 'group' | 'group-with-choices' | 'quantified' = 'none';
  let i = pattern.startsWith('***:') ? 4 : 0;
  while (i < pattern.length) {
    const c = pattern[i];
    if (c === '\\') {
      if (/[1-9]/.test(pattern[i + 1] ?? '')) throw badRequest(`${key}: back references (\\1 to \\9) are not allowed in filter regular expressions.`);
      i += 2;
      last = 'atom';
    } else if (c === '[') {
      i = afterBracket(pattern, i);
      last = 'atom';
    } else if (c === '(') {
      const options = /^\(\?[a-z]+\)/.exec(pattern.slice(i));
      if (options) {
        i += options[0].length;
        continue;
      }
      if (/^\(\?(=|!|<=|<!)/.test(pattern.slice(i))) {
        throw badRequest(`${key}: lookahead and lookbehind constraints are not allowed in filter regular expressions.`);
      }
      i += pattern.startsWith('(?:', i) ? 3 : 1;
      groups.push(false);
      last = 'none';
    } else if (c === ')' && groups.length > 1) {
      const inner = groups.pop()!;
      groups[groups.length - 1] ||= inner;
      last = inner ? 'group-with-choices' : 'group';
      i += 1;
    } else if (c === '|') {
      groups[groups.length - 1] = true;
      last = 'none';
      i += 1;
    } else if (c === '*' || c === '+' || c === '?' || (c === '{' && /^\{\d+(,\d*)?\}/.test(pattern.slice(i)))) {
      let repeats = c !== '?';
      let length = 1;
      if (c === '{') {
        const bound = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(i))!;
        const min = Number(bound[1]);
        const max = bound[2] === undefined ? min : bound[3] === '' ? Infinity : Number(bound[3]);
        if (min > MAX_FILTER_REGEX_COUNT || (max !== Infinity && max > MAX_FILTER_REGEX_COUNT)) {
          throw badRequest(`${key}: repetition counts above ${MAX_FILTER_REGEX_COUNT} are not allowed in filter regular expressions.`);
        }
        repeats = max > 1;
        length = bound[0].length;
      }
      if (last === 'quantified' || (repeats && last === 'group-with-choices')) {
        throw badRequest(
          `${key}: a repeated group may not itself hold a repetition or alternatives (as in (a+)+ or (a|b)*) in filter regular expressions.`,
        );
      }
      groups[groups.length - 1] = true;
      last = 'quantified';
      i += length;
      // A ? right after a quantifier makes it non-greedy; it is not another repetition.
      if (pattern[i] === '?') i += 1;
    } else {
      last = 'atom';
      i += 1;
    }
  }
}

/** The index just past a bracket expression starting at `start` ([a-z], [^]x], [[:alpha:]]). */
function afterBracket(pattern: string, start: number): number {
  let i = start + 1;
  if (pattern[i] === '^') i += 1;
  if (pattern[i] === ']') i += 1;
  while (i < pattern.length && pattern[i] !== ']') {
    if (pattern[i] === '\\') i += 2;
    else if (pattern[i] === '[' && /[:.=]/.test(pattern[i + 1] ?? '')) {
      const close = pattern.indexOf(`${pattern[i + 1]}]`, i + 2);
      i = close === -1 ? pattern.length : close + 2;
    } else i += 1;
  }
  return i + 1;
}
