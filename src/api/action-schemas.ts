/** Schemas of the actions several resources share (AWX's copy/, update/, cancel/), for their routes' schemas. */
import { Type, type TSchema } from 'typebox';
import { NO_CONTENT, OPTIONS_RESPONSE } from './field-schemas.ts';
import type { MethodSchema } from './route-schemas.ts';
import { NOT_BLANK } from './schema-errors.ts';

export { NO_CONTENT, OPTIONS_RESPONSE };

/** POST copy/: the name of the copy. */
export const CopyBody = Type.Object({ name: Type.String({ pattern: NOT_BLANK, maxLength: 512, description: 'Name of the copy.' }) });

/** GET copy/: whether the caller may copy the object. */
export const CopyCheck = Type.Object({ can_copy: Type.Boolean() }, { additionalProperties: true });

/** The schemas of a copy/ route whose POST checks CopyBody (the handler reads it with validBody). */
export const copyRouteSchemas = (what: string): Record<string, MethodSchema> => ({
  GET: { summary: `Whether the ${what} can be copied`, response: { 200: CopyCheck } },
  POST: { summary: `Copy the ${what}`, body: CopyBody, checkBody: true, response: { 201: Type.Object({}, { additionalProperties: true }) } },
  OPTIONS: OPTIONS_RESPONSE,
});

/** A run started by an action (update/, launch/, relaunch/): the new run, with its id under its kind's name. */
export const StartedRun = Type.Object({ id: Type.Integer(), url: Type.String(), status: Type.String() }, { additionalProperties: true });

/** The schemas of an action that takes no body: GET tells whether it may be done (`can`), POST does it. */
export const actionRouteSchemas = (can: string, summary: string, started: number, response: TSchema = StartedRun): Record<string, MethodSchema> => ({
  GET: { summary: `Whether the caller may ${summary.charAt(0).toLowerCase()}${summary.slice(1)}`, response: { 200: Type.Object({ [can]: Type.Boolean() }) } },
  POST: { summary, description: 'Takes no body.', response: { [started]: response } },
  OPTIONS: OPTIONS_RESPONSE,
});
