/** An answer of the API other than 2xx, with its body: AWX's {detail} or {field: [messages]}. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    super(messageOf(status, body));
  }

  /** Messages by field name, as the API returns validation errors (400). */
  get fieldErrors(): Record<string, string> {
    const out: Record<string, string> = {};
    if (this.status !== 400 || !this.body || typeof this.body !== 'object') return out;
    for (const [field, value] of Object.entries(this.body as Record<string, unknown>)) {
      if (field === 'detail' || field === '__all__' || field === 'non_field_errors') continue;
      out[field] = flatten(value);
    }
    return out;
  }
}

function flatten(value: unknown): string {
  if (Array.isArray(value)) return value.map(flatten).join(' ');
  if (value && typeof value === 'object') return Object.entries(value).map(([k, v]) => `${k}: ${flatten(v)}`).join(' ');
  return String(value);
}

function messageOf(status: number, body: unknown): string {
  if (body && typeof body === 'object') {
    const b = body as Record<string, unknown>;
    for (const key of ['detail', '__all__', 'non_field_errors', 'error']) if (b[key]) return flatten(b[key]);
    const fields = Object.entries(b).map(([k, v]) => `${k}: ${flatten(v)}`);
    if (fields.length) return fields.join('; ');
  }
  if (typeof body === 'string' && body.trim() && !body.trimStart().startsWith('<')) return body.trim();
  return `The server answered ${status}.`;
}
