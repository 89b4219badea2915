/**
 * Schemas of the ad hoc command endpoints beyond the conventional ones: starting one from an
 * inventory, host or group (its field declarations, less what the URL fixes) and relaunch/.
 */
import { Type } from 'typebox';
import { OPTIONS_RESPONSE, StartedRun } from '../../api/action-schemas.ts';
import { bodySchema, bodyWords, listQuerySchema, objectSchema, pageSchema } from '../../api/field-schemas.ts';
import type { Resource } from '../../api/resource.ts';
import type { MethodSchema } from '../../api/route-schemas.ts';
import { LAUNCH_PASSWORDS } from './checks.ts';

/** {inventory,host,group}/{id}/ad_hoc_commands/: the commands aimed at the parent, and POST to start one there. */
export function parentCommandSchemas(commands: Resource, fixed: readonly string[]): Record<string, MethodSchema> {
  return {
    GET: { summary: 'Ad hoc commands run here', querystring: listQuerySchema(commands), response: { 200: pageSchema(commands) } },
    // The command's create body, less what the URL fixes (which overrides the body).
    POST: { summary: 'Start an ad hoc command here', body: bodySchema(commands, 'create', fixed), checkBody: true, fieldWords: bodyWords(commands), response: { 201: objectSchema(commands) } },
    OPTIONS: OPTIONS_RESPONSE,
  };
}

/** POST relaunch/: the passwords the credential asks for at launch (the original command's are not kept). */
export const AdHocRelaunchBody = Type.Object(
  Object.fromEntries(LAUNCH_PASSWORDS.map((name) => [name, Type.Optional(Type.Union([Type.String(), Type.Null()], { errorMessage: 'Not a valid string.' }))])),
  { additionalProperties: true },
);

export const adHocRelaunchSchemas: Record<string, MethodSchema> = {
  GET: { summary: 'The passwords a relaunch needs', response: { 200: Type.Object({ passwords_needed_to_start: Type.Array(Type.String()) }) } },
  POST: { summary: 'Run a new command with the same values', body: AdHocRelaunchBody, checkBody: true, response: { 201: Type.Intersect([StartedRun, Type.Object({ ad_hoc_command: Type.Integer() })]) } },
  OPTIONS: OPTIONS_RESPONSE,
};
