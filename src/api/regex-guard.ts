import { badRequest } from './errors.ts';

/** Longest pattern a __regex or __iregex filter may use. */
export const MAX_FILTER_REGEX_LENGTH = 200;
/** Largest count in a bounded repetition ({m}, {m,}, {m,n}). */
export const MAX_FILTER_REGEX_COUNT = 100;

/** Most __regex and __iregex filters one request may use. */
export const MAX_FILTER_REGEXES = 10;

/**
 * The most the regular expressions of one request may cost together. A pattern's cost is what
 * PostgreSQL builds from it: one state per atom (a character, an escape, a bracket expression, a
 * dot), a bounded repetition copying what it repeats up to its upper bound ({m,n} n times, {m}
 * and {m,} m times), so counts multiply along nesting; *, + and ? make a loop or a skip and copy
 * nothing. Matching costs about the text's length times the states, so ten filters of
 * `.{0,100}` written 24 times (cost 2,400 each) take seconds on a few thousand rows, while the
 * patterns people write (`^web-\d+$`, an IP address with {1,3}, a name with .{0,100}) cost from
 * a few to a few hundred.
 */
export const MAX_FILTER_REGEX_COST = 1_000;

/**
 * Refuses, before the database sees them, the regular expressions whose cost can explode:
 * PostgreSQL compiles a repeated group that itself repeats ((a{1,100}){1,100}) into an
 * automaton that takes seconds to build, back references make matching backtrack, and a
 * lookahead or lookbehind is tried again at every position (quadratic in the text's length). The
 * embedded database runs one statement at a time and stops one only by restarting, so a pattern
 * like that would hold every request that needs it until LIST_QUERY_TIMEOUT. Patterns are PostgreSQL's (ARE) syntax; anything this scan
 * does not understand is left for the database to accept or reject as invalid.
 */
export function checkFilterRegex(pattern: string, key: string): number {
  if (pattern.length > MAX_FILTER_REGEX_LENGTH) {
    throw badRequest(`${key}: a regular expression in a filter may be at most ${MAX_FILTER_REGEX_LENGTH} characters long.`);
  }
  // ***= makes the rest a literal string.
  if (pattern.startsWith('***=')) return pattern.length - 4;
  // Per open group: whether it holds a repetition or alternatives so far.
  const groups: boolean[] = [false];
  // Per open group: its cost so far, and the cost of its last item (what a quantifier repeats).
  const costs: { total: number; last: number }[] = [{ total: 0, last: 0 }];
  const atom = () => {
    const group = costs[costs.length - 1];
    group.total += 1;
    group.last = 1;
  };
  let last: 'none' | 'atom' | 'group' | 'group-with-choices' | 'quantified' = 'none';
  let i = pattern.startsWith('***:') ? 4 : 0;
  while (i < pattern.length) {
    const c = pattern[i];
    if (c === '\\') {
      if (/[1-9]/.test(pattern[i + 1] ?? '')) throw badRequest(`${key}: back references (\\1 to \\9) are not allowed in filter regular expressions.`);
      i += 2;
      last = 'atom';
      atom();
    } else if (c === '[') {
      i = afterBracket(pattern, i);
      last = 'atom';
      atom();
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
      costs.push({ total: 0, last: 0 });
      last = 'none';
    } else if (c === ')' && groups.length > 1) {
      const inner = groups.pop()!;
      groups[groups.length - 1] ||= inner;
      const { total } = costs.pop()!;
      const group = costs[costs.length - 1];
      group.total += total;
      group.last = total;
      last = inner ? 'group-with-choices' : 'group';
      i += 1;
    } else if (c === '|') {
      groups[groups.length - 1] = true;
      last = 'none';
      i += 1;
    } else if (c === '*' || c === '+' || c === '?' || (c === '{' && /^\{\d+(,\d*)?\}/.test(pattern.slice(i)))) {
      let repeats = c !== '?';
      let length = 1;
      let copies = 1;
      if (c === '{') {
        const bound = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(i))!;
        const min = Number(bound[1]);
        const max = bound[2] === undefined ? min : bound[3] === '' ? Infinity : Number(bound[3]);
        if (min > MAX_FILTER_REGEX_COUNT || (max !== Infinity && max > MAX_FILTER_REGEX_COUNT)) {
          throw badRequest(`${key}: repetition counts above ${MAX_FILTER_REGEX_COUNT} are not allowed in filter regular expressions.`);
        }
        repeats = max > 1;
        length = bound[0].length;
        copies = Math.max(1, max === Infinity ? min : max);
      }
      if (last === 'quantified' || (repeats && last === 'group-with-choices')) {
        throw badRequest(
          `${key}: a repeated group may not itself hold a repetition or alternatives (as in (a+)+ or (a|b)*) in filter regular expressions.`,
        );
      }
      groups[groups.length - 1] = true;
      const group = costs[costs.length - 1];
      group.total += group.last * (copies - 1);
      group.last *= copies;
      last = 'quantified';
      i += length;
      // A ? right after a quantifier makes it non-greedy; it is not another repetition.
      if (pattern[i] === '?') i += 1;
    } else {
      last = 'atom';
      if (c !== '^' && c !== '$' && c !== '|') atom();
      i += 1;
    }
  }
  return costs.reduce((sum, group) => sum + group.total, 0);
}

/**
 * Checks every __regex and __iregex filter of a request (checkFilterRegex) and their cost together:
 * 400 naming the filter that takes the total over MAX_FILTER_REGEX_COST.
 */
export function checkFilterRegexes(filters: [key: string, pattern: string][]): void {
  if (filters.length > MAX_FILTER_REGEXES) throw badRequest(`A request may use at most ${MAX_FILTER_REGEXES} regular expression filters.`);
  let total = 0;
  for (const [key, pattern] of filters) {
    const cost = checkFilterRegex(pattern, key);
    total += cost;
    if (total > MAX_FILTER_REGEX_COST) {
      throw badRequest(
        `${key}: the regular expressions of this request are too costly together (this one costs ${cost}, bringing the total to ${total}; at most ${MAX_FILTER_REGEX_COST} is allowed). `
        + 'Bounded repetitions such as {0,100} cost their bound times what they repeat: use fewer, smaller bounds, or * and +.',
      );
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
