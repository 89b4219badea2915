import v8 from 'node:v8';

// An inventory source's host_filter runs in this process against every imported host name. V8's
// default engine backtracks, so a pattern such as (a+)+$ would stall every request of the
// service; the linear-time engine (the `l` flag) cannot, and refuses what it cannot run in linear
// time (back references, lookahead and lookbehind).
v8.setFlagsFromString('--enable-experimental-regexp-engine');

/** The matcher of a host_filter, anchored at the start as AWX's re.match is; throws with a message for a pattern it refuses. */
export function hostFilterMatcher(pattern: string): RegExp {
  try {
    return new RegExp(`^(?:${pattern})`, 'l');
  } catch (err) {
    const message = (err as Error).message;
    if (/linear time/.test(message)) throw new Error('back references, lookahead and lookbehind are not allowed.');
    throw new Error(message.replace(/^Invalid regular expression: \/.*\/l: /, ''));
  }
}
