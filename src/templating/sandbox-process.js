// The process the Jinja sandbox renders in (see sandbox.ts): plain JavaScript so that it loads without
// the TypeScript loader. It sees only the context it is sent and answers text or an error message;
// a template that exhausts its small heap ends this process, never the service.
import { Template } from '@huggingface/jinja';

// Nothing is left to do once the service that started this process is gone.
process.on('disconnect', () => process.exit(0));

process.on('message', ({ id, source, context, maxOutputChars }) => {
  let answer;
  try {
    const text = new Template(source).render(context);
    answer = text.length > maxOutputChars ? { id, error: `output is longer than ${maxOutputChars} characters` } : { id, text };
  } catch (err) {
    answer = { id, error: err instanceof Error ? err.message : String(err) };
  }
  process.send(answer);
});
