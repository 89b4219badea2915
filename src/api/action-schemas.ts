/**
 * Schemas of the actions several resources share (AWX's copy/, update/, cancel/, a related list's
 * attach and detach), for their routes' schemas and the bodies those routes check.
 */
import { Type, type Static, type TSchema } from 'typebox';
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

/** Any JSON object: what a route checks of a body whose keys are read further on (a launch's prompts). */
export const AnyObject = Type.Record(Type.String(), Type.Unknown());

/**
 * The id of an object named in a body: an integer, or its digits as a string (as DRF's IntegerField
 * reads it). An id past the database's integer range names no object (404), unless `bounded`.
 */
const objectId = (bounded: boolean) =>
  Type.Union([Type.Integer({ minimum: 1, ...(bounded && { maximum: 2_147_483_647 }) }), Type.String({ pattern: bounded ? '^0*[1-9][0-9]{0,8}$' : '^0*[1-9][0-9]*$' })], {
    errorMessage: 'A valid integer is required.',
    description: 'ID of the object.',
  });
export const ObjectId = objectId(false);

const Disassociate = Type.Unknown({ description: 'true (or "true") detaches instead of attaching.' });

/**
 * POST on a related list (AWX's SubListAttachDetachAPIView): {id} attaches, {id, disassociate: true}
 * detaches; a body without id creates an object there where the list allows, its fields checked by
 * the target's declarations.
 */
export const LinkBody = Type.Object({ id: Type.Optional(ObjectId), disassociate: Type.Optional(Disassociate) }, { additionalProperties: true });

/** POST on a list that only attaches and detaches: the id is required, within the database's integer range. */
export const AttachBody = Type.Object({ id: objectId(true), disassociate: Type.Optional(Disassociate) }, { additionalProperties: true });

/** The object a checked link body names, and whether it detaches it; null when it names none. */
export function linkOf(body: Static<typeof LinkBody>): { id: number; disassociate: boolean } | null {
  if (body.id === undefined) return null;
  return { id: Number(body.id), disassociate: body.disassociate === true || body.disassociate === 'true' };
}
