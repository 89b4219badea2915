/**
 * How deep a value users send may nest. The functions that walk such values (the NUL check, the
 * unsafe marking of extra vars, JSON.stringify itself, PostgreSQL's jsonb input) recurse once per
 * level, so a body of a few megabytes of `[` would exhaust the stack: every JSON body, webhook
 * payload and variables text is refused beyond MAX_JSON_DEPTH levels before it is parsed, and every
 * walker stops there too (TooDeepError) for values that came another way.
 */

export const MAX_JSON_DEPTH = 64;
export const TOO_DEEP = `Values nested deeper than ${MAX_JSON_DEPTH} levels are not accepted.`;

/** Thrown by a walker asked to go deeper than MAX_JSON_DEPTH; the API answers it 400 with its message. */
export class TooDeepError extends Error {
  constructor(message = TOO_DEEP) {
    super(message);
    this.name = 'TooDeepError';
  }
}

/** For a recursive walker at `depth` (0 at the top): throws once it is past MAX_JSON_DEPTH. */
export function descend(depth: number): number {
  if (depth >= MAX_JSON_DEPTH) throw new TooDeepError();
  return depth + 1;
}

/**
 * Whether JSON text opens more than `max` arrays or objects inside one another. One pass over the
 * characters, without parsing (strings are skipped, so brackets inside them do not count); text that
 * is not JSON at all is left to the parser to refuse.
 */
export function jsonTextTooDeep(text: string, max = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: the next character is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

/** Whether a parsed value nests arrays or objects more than `max` deep (walked without recursion). */
export function nestsDeeperThan(value: unknown, max = MAX_JSON_DEPTH): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length) {
    const [item, depth] = stack.pop()!;
    if (!item || typeof item !== 'object') continue;
    if (depth >= max) return true;
    for (const child of Object.values(item)) if (child && typeof child === 'object') stack.push([child, depth + 1]);
  }
  return false;
}
