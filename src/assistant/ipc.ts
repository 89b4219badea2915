/**
 * Messages between `drover serve` and the assistant it starts as a child process (over the IPC
 * channel of child_process.fork).
 */

export type ChildMessage =
  /** The assistant listens: the main service proxies /assistant/ there from now on. */
  | { type: 'listening'; url: string }
  /** The assistant asks for the main service's OpenAPI document (for its index). */
  | { type: 'openapi?' };

export type ParentMessage = { type: 'openapi'; document: unknown };

const isParentMessage = (value: unknown): value is ParentMessage => (value as ParentMessage | null)?.type === 'openapi';

/** Tells the parent, when there is one. */
export function tellParent(message: ChildMessage): void {
  if (process.send && process.connected) process.send(message);
}

/** Asks the parent for the main service's OpenAPI document; null without a parent or an answer in time. */
export function askParentForOpenApi(timeoutMs = 30_000): Promise<unknown> {
  if (!process.send || !process.connected) return Promise.resolve(null);
  return new Promise((resolve) => {
    const timer = setTimeout(() => done(null), timeoutMs);
    const onMessage = (message: unknown) => {
      if (isParentMessage(message)) done(message.document);
    };
    const done = (document: unknown) => {
      clearTimeout(timer);
      process.off('message', onMessage);
      resolve(document);
    };
    process.on('message', onMessage);
    tellParent({ type: 'openapi?' });
  });
}
