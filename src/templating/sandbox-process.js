// The process the Jinja sandbox renders in (see sandbox.ts): plain JavaScript so that it loads without
// the TypeScript loader. It sees only the context it is sent and answers text or an error message;
// a template that exhausts its small heap ends this process, never the service.
import { Template } from '@huggingface/jinja';

// Nothing is left to do once the service that started this process is gone.
process.on('disconnect', () => process.exit(0));

const MAX_CACHED = 2_000;
const MAX_CACHED_SOURCE = 8_192;
const parsed = new Map();

/** The parsed template of `source`: conditions of a rule are parsed once, not at every event. */
function templateOf(source) {
  let template = parsed.get(source);
  if (!template) {
    template = new Template(source);
    if (source.length > MAX_CACHED_SOURCE) return template;
    if (parsed.size >= MAX_CACHED) parsed.clear();
    parsed.set(source, template);
  }
  return template;
}

/** A set's variables: sent as JSON text when the service had them as text (a stored event). */
const contextOf = (set) => (typeof set.context === 'string' ? JSON.parse(set.context) : set.context);

const messageOf = (err) => (err instanceof Error ? err.message : String(err));

/** `{% if e1 %}1{% if e2 %}1...{% else %}0{% endif %}{% else %}0{% endif %}`: stops at the first that does not hold. */
const nested = (expressions) => expressions.reduceRight((inner, e) => `{% if ${e} %}1${inner}{% else %}0{% endif %}`, '');
const flat = (expressions) => expressions.map((e) => `{% if ${e} %}1{% else %}0{% endif %}`).join('');

/**
 * Each expression's truth over `context`: of all of them, or, with `stop`, of those up to the first
 * that does not hold (the answer is then shorter). The parent checked that each is a single
 * expression, so they may be joined into one template, rendered once; when that fails, each is tried
 * alone so that the error belongs to the expression that made it.
 */
function conditionResults(expressions, context, stop) {
  if (!expressions.length) return [];
  try {
    const text = templateOf(stop ? nested(expressions) : flat(expressions)).render(context);
    if (stop ? /^1*0?$/.test(text) && text.length <= expressions.length : text.length === expressions.length) return [...text].map((c) => ({ matched: c === '1' }));
  } catch {
    // Found below, expression by expression.
  }
  const results = [];
  for (const e of expressions) {
    let result;
    try {
      result = { matched: templateOf(`{% if ${e} %}1{% endif %}`).render(context) === '1' };
    } catch (err) {
      result = { matched: false, error: `Template error: ${messageOf(err)}` };
    }
    results.push(result);
    if (stop && !result.matched) break;
  }
  return results;
}

process.on('message', ({ id, source, context, maxOutputChars, conditionSets }) => {
  let answer;
  try {
    if (conditionSets) answer = { id, results: conditionSets.map((set) => conditionResults(set.expressions, contextOf(set), set.stopAtFirstFailure === true)) };
    else {
      const text = templateOf(source).render(context);
      answer = text.length > maxOutputChars ? { id, error: `output is longer than ${maxOutputChars} characters` } : { id, text };
    }
  } catch (err) {
    answer = { id, error: messageOf(err) };
  }
  process.send(answer);
});

process.send({ ready: true });
