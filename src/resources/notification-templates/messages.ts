/**
 * Custom messages of a notification template (AWX's `messages`): per event a {message, body}, the
 * workflow approval event per sub-event. Checked as AWX checks them (structure, no newline in a
 * message) and each template's syntax in the sandbox's parser, so a broken one is refused on save.
 */
import { ValidationError } from '../../api/errors.ts';
import { checkSyntax } from '../../templating/sandbox.ts';

export const EVENTS = ['started', 'success', 'error', 'workflow_approval'] as const;
export const APPROVAL_EVENTS = ['running', 'approved', 'timed_out', 'denied'] as const;

export type Messages = Record<string, unknown> | null;

export const DEFAULT_MESSAGES = { started: null, success: null, error: null, workflow_approval: null };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const pyType = (v: unknown) => (Array.isArray(v) ? "<class 'list'>" : v === null ? "<class 'NoneType'>" : `<class '${typeof v === 'number' ? 'int' : typeof v === 'string' ? 'str' : typeof v === 'boolean' ? 'bool' : 'dict'}'>`);

function checkPair(event: string, pair: Record<string, unknown>, errors: string[]): void {
  for (const [kind, text] of Object.entries(pair)) {
    if (kind !== 'message' && kind !== 'body') {
      errors.push(`Message type '${kind}' invalid, must be either 'message' or 'body'`);
      continue;
    }
    if (text === null) continue;
    if (typeof text !== 'string') {
      errors.push(`Expected string for '${kind}', found ${pyType(text)}, `);
      continue;
    }
    if (kind === 'message' && text.includes('\n')) {
      errors.push(`Messages cannot contain newlines (found newline in ${event} event)`);
      continue;
    }
    const problem = checkSyntax(text);
    if (problem) errors.push(`Unable to render message '${text}': ${problem}`);
  }
}

/** Checks `messages`; throws {"messages": [...]} listing every problem. */
export function validateMessages(messages: unknown): Messages {
  if (messages === null) return null;
  const errors: string[] = [];
  if (!isObject(messages)) throw ValidationError.field('messages', `Expected dict for 'messages' field, found ${pyType(messages)}`);
  for (const [event, value] of Object.entries(messages)) {
    if (!(EVENTS as readonly string[]).includes(event)) {
      errors.push(`Event '${event}' invalid, must be one of 'started', 'success', 'error', or 'workflow_approval'`);
      continue;
    }
    if (value === null) continue;
    if (!isObject(value)) {
      errors.push(`Expected dict for event '${event}', found ${pyType(value)}`);
      continue;
    }
    if (event !== 'workflow_approval') {
      checkPair(event, value, errors);
      continue;
    }
    for (const [sub, pair] of Object.entries(value)) {
      if (!(APPROVAL_EVENTS as readonly string[]).includes(sub)) {
        errors.push(`Workflow Approval event '${sub}' invalid, must be one of 'running', 'approved', 'timed_out', or 'denied'`);
        continue;
      }
      if (pair === null) continue;
      if (!isObject(pair)) errors.push(`Expected dict for workflow approval event '${sub}', found ${pyType(pair)}`);
      else checkPair(sub, pair, errors);
    }
  }
  if (errors.length) throw new ValidationError({ messages: errors });
  return messages;
}

/** A pair that leaves out `message` or `body` keeps the stored one (AWX merges on save). */
function mergePair(old: unknown, incoming: unknown): unknown {
  if (!isObject(incoming) || !isObject(old)) return incoming ?? old ?? null;
  const out = { ...incoming };
  for (const kind of ['message', 'body']) if (!(kind in out) && old[kind]) out[kind] = old[kind];
  return out;
}

/** The messages to store on update: events and sub-events the update leaves out keep their stored messages. */
export function mergeMessages(old: Messages, incoming: Messages): Messages {
  if (incoming === null || old === null) return incoming === null ? null : { ...DEFAULT_MESSAGES, ...incoming };
  const out: Record<string, unknown> = { ...DEFAULT_MESSAGES };
  for (const event of EVENTS) {
    if (event !== 'workflow_approval') {
      out[event] = incoming[event] ? mergePair(old[event], incoming[event]) : old[event] ?? null;
      continue;
    }
    const oldSubs = isObject(old[event]) ? old[event] : {};
    const newSubs = isObject(incoming[event]) ? incoming[event] : {};
    if (!Object.keys(oldSubs).length && !Object.keys(newSubs).length) {
      out[event] = incoming[event] ?? old[event] ?? null;
      continue;
    }
    out[event] = Object.fromEntries(
      APPROVAL_EVENTS.filter((sub) => sub in oldSubs || sub in newSubs).map((sub) => [sub, newSubs[sub] ? mergePair(oldSubs[sub], newSubs[sub]) : oldSubs[sub] ?? null]),
    );
  }
  return out;
}
