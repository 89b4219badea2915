/** What the assistant's endpoints take and answer: checked on the way in (validation.ts) and published in its OpenAPI document. */
import { Type, type Static } from 'typebox';
import { HISTORY_MESSAGES } from './prompt.ts';

export const MESSAGE_MAX = 4000;
export const PAGE_MAX = 500;
export const HISTORY_MAX = 20;
export const TURN_MAX = 8000;
/** Large enough for a full history at its limits. */
export const BODY_LIMIT = 256 * 1024;

const Turn = Type.Object({
  role: Type.Enum(['user', 'assistant'], { description: 'Who said it.' }),
  content: Type.String({ maxLength: TURN_MAX }),
});

export const ChatBody = Type.Object({
  message: Type.String({ minLength: 1, maxLength: MESSAGE_MAX, pattern: '\\S', description: 'The question.' }),
  context: Type.Optional(
    Type.Object({
      page: Type.Optional(Type.String({ maxLength: PAGE_MAX, description: 'The route of the web console page the question is asked from, such as /jobs/42.' })),
    }),
  ),
  history: Type.Optional(
    Type.Array(Turn, { maxItems: HISTORY_MAX, description: `Earlier turns of the conversation, oldest first; the last ${HISTORY_MESSAGES / 2} exchanges are used.` }),
  ),
});

export type ChatRequest = Static<typeof ChatBody>;

const Source = Type.Object({ source: Type.String(), title: Type.String(), heading: Type.String() });

/** The events of the answer, each sent as one `data: <JSON>` line and a blank line. */
export const ChatEvent = Type.Union([
  Type.Object({ token: Type.String() }, { description: 'A piece of the answer, as the model produced it.' }),
  Type.Object({ done: Type.Literal(true), sources: Type.Array(Source) }, { description: 'The last event: the passages given to the model, numbered [1], [2]... in this order.' }),
  Type.Object({ error: Type.String(), done: Type.Literal(true) }, { description: 'The last event when the answer failed.' }),
]);

export const IndexQuery = Type.Object({
  rebuild: Type.Optional(Type.Boolean({ default: false, description: 'true drops the index and indexes everything again; false indexes only the documents that changed.' })),
});

export const IndexOutcome = Type.Object({ indexed_chunks: Type.Integer(), rebuild: Type.Boolean() });

export const Health = Type.Object({
  status: Type.Enum(['ok', 'degraded']),
  version: Type.String(),
  llm_backend: Type.Boolean({ description: 'The language model server answers and lists the configured model.' }),
  vector_store: Type.Boolean({ description: 'The documentation index answers.' }),
  model: Type.String(),
});

export const Detail = Type.Object({ detail: Type.Unknown() });
