/** The fields of an outbound webhook that need more checking than their type: the URL, the events and the headers. */
import { composedField, FieldProblem, json, text, type Field } from '../../api/fields.ts';
import { parseVariables, variablesProblem } from '../../inventory/variables.ts';

/** The composition's vocabulary entry: RunKinds.webhookEventTypes() of the service (composeServices). */
export const WEBHOOK_EVENT_TYPES = 'outbound webhook event types';

export const URL_MAX_LENGTH = 1024;

/** An http or https URL with a host; credentials belong in a header, not in the URL everyone who reads the webhook sees. */
export function urlField(): Field {
  const field = text({ required: true, maxLength: URL_MAX_LENGTH, allowBlank: false, label: 'URL', helpText: 'Where deliveries are posted: an http or https URL.' });
  return {
    ...field,
    parse: (value) => {
      const raw = field.parse(value) as string;
      let url: URL;
      try {
        url = new URL(raw.trim());
      } catch {
        throw new FieldProblem('Enter a valid URL.');
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new FieldProblem(`Only http and https URLs are allowed, not ${url.protocol.replace(/:$/, '')}.`);
      if (!url.hostname) throw new FieldProblem('Enter a valid URL.');
      if (url.username || url.password) throw new FieldProblem('Put credentials in custom_headers (an Authorization header), not in the URL.');
      return raw.trim();
    },
  };
}

const typeName = (value: unknown) => (value === null ? 'null' : Array.isArray(value) ? 'list' : typeof value);

/** events: one or more of the composed run kinds' events, each once. */
export function eventsField(): Field {
  return composedField(WEBHOOK_EVENT_TYPES, (types) => eventsOf(types as readonly string[]), { required: true, helpText: 'The events delivered.' });
}

function eventsOf(types: readonly string[]): Field {
  return {
    ...json({ required: true, helpText: `The events delivered: ${types.join(', ')}.` }),
    choices: types.map((e) => [e, e] as const),
    valueSchema: { type: 'array', items: { type: 'string', enum: [...types] }, minItems: 1, uniqueItems: true },
    parse: (value) => {
      if (!Array.isArray(value)) throw new FieldProblem(`Expected a list of items but got type "${typeName(value)}".`);
      if (!value.length) throw new FieldProblem('Choose at least one event.');
      const unknown = value.find((v) => typeof v !== 'string' || !types.includes(v));
      if (unknown !== undefined) throw new FieldProblem(`"${String(unknown)}" is not a valid choice. Choose from ${types.join(', ')}.`);
      const repeated = value.find((v, i) => value.indexOf(v) !== i);
      if (repeated !== undefined) throw new FieldProblem(`"${String(repeated)}" is listed more than once.`);
      return value;
    },
  };
}

export const MAX_HEADERS = 20;
const MAX_NAME_LENGTH = 256;
const MAX_VALUE_LENGTH = 4096;
const MAX_TOTAL_BYTES = 16 * 1024;
/** RFC 9110 token characters. */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Visible ASCII, space and tab: nothing that could end the header line (CR, LF) or that HTTP clients refuse. */
const HEADER_VALUE = /^[\t\x20-\x7e]*$/;
/** Headers the service sets itself, or that decide how the request is framed. */
const RESERVED = new Set([
  'content-type', 'content-length', 'host', 'x-svc-signature',
  'transfer-encoding', 'connection', 'keep-alive', 'upgrade', 'te', 'trailer', 'expect', 'proxy-connection',
]);

function headersOf(value: unknown): Record<string, unknown> {
  if (typeof value === 'string') {
    // The console's editor sends the text as typed: JSON or YAML holding a mapping.
    if (variablesProblem(value)) throw new FieldProblem('Expected a JSON object of header names and values.');
    return parseVariables(value);
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new FieldProblem(`Expected a JSON object of header names and values, not ${typeName(value)}.`);
  return value as Record<string, unknown>;
}

/** custom_headers: names and values as strings, at most MAX_HEADERS, none the service sets itself. */
export function customHeadersField(): Field {
  return {
    ...json({ default: {}, helpText: `Headers sent with every delivery: names and values (at most ${MAX_HEADERS}), as a JSON object or YAML. Content-Type, Content-Length, Host and X-Svc-Signature are set by the service.` }),
    valueSchema: { type: ['object', 'string'] },
    parse: (value) => {
      const headers = headersOf(value);
      const entries = Object.entries(headers);
      if (entries.length > MAX_HEADERS) throw new FieldProblem(`At most ${MAX_HEADERS} headers are allowed.`);
      const seen = new Set<string>();
      let total = 0;
      for (const [name, headerValue] of entries) {
        const lower = name.toLowerCase();
        if (!name || name.length > MAX_NAME_LENGTH || !HEADER_NAME.test(name)) throw new FieldProblem(`"${name.slice(0, 64)}" is not a valid header name.`);
        if (RESERVED.has(lower)) throw new FieldProblem(`The header ${name} is set by the service and cannot be given.`);
        if (seen.has(lower)) throw new FieldProblem(`The header ${name} is given more than once.`);
        seen.add(lower);
        if (typeof headerValue !== 'string') throw new FieldProblem(`The value of ${name} must be a string.`);
        if (headerValue.length > MAX_VALUE_LENGTH) throw new FieldProblem(`The value of ${name} is longer than ${MAX_VALUE_LENGTH} characters.`);
        if (!HEADER_VALUE.test(headerValue)) throw new FieldProblem(`The value of ${name} holds a character headers cannot carry (a line break or a control character).`);
        total += name.length + headerValue.length;
      }
      if (total > MAX_TOTAL_BYTES) throw new FieldProblem(`The headers are larger than ${MAX_TOTAL_BYTES} bytes in all.`);
      return headers;
    },
  };
}
