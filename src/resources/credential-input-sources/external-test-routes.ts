/**
 * AWX's external credential tests: POST {inputs, metadata} to `credentials/{id}/test/` (inputs over
 * the stored ones, "$encrypted$" keeping a stored secret) or `credential_types/{id}/test/` (inputs
 * as given) looks a secret up and answers 202, or 400 {"inputs": "<what went wrong>"}. The value
 * found is never answered.
 */
import { Type } from 'typebox';
import { ENCRYPTED, json } from '../../api/fields.ts';
import { actionOptions } from '../../api/options.ts';
import type { RouteModule } from '../../api/extra-routes.ts';
import { objectPermission } from '../../api/permissions.ts';
import { routeMethods } from '../../api/resource-routes.ts';
import { OPTIONS_RESPONSE } from '../../api/action-schemas.ts';
import { validBody, type MethodSchema } from '../../api/route-schemas.ts';
import type { CredentialRow, CredentialTypeRow as TypeTableRow } from '../../db/tables.ts';
import type { CredentialTypeRow, Inputs } from '../credentials/credential-inputs.ts';
import { loadCredential, loadCredentialType } from '../credentials/credential-use.ts';
import { clearInputs } from '../credentials/credential-inputs.ts';
import { lookUp, LookupFailed, lookupsOf, metadataArgs } from '../credentials/dynamic-inputs.ts';

const InputsObject = Type.Record(Type.String(), Type.Unknown(), { errorMessage: 'Expected a dictionary.' });
const TestBody = Type.Object({ inputs: Type.Optional(InputsObject), metadata: Type.Optional(InputsObject) });

const testSchemas = (what: string): Record<string, MethodSchema> => ({
  GET: { summary: `The ${what}'s test endpoint (an empty object)`, response: { 200: Type.Object({}) } },
  POST: {
    summary: `Test a secret lookup of the ${what}`,
    body: TestBody,
    checkBody: true,
    response: { 202: Type.Object({}), 400: Type.Object({ inputs: Type.String() }) },
  },
  OPTIONS: OPTIONS_RESPONSE,
});

/** AWX's EmptySerializer: nothing answered, {inputs, metadata} read from the body. */
const testOptions = (name: string, description: string) =>
  actionOptions(name, description, { GET: {}, POST: { inputs: json({ helpText: 'Inputs over the stored ones.' }), metadata: json({ helpText: 'What the lookup reads.' }) } });

export const externalTestRoutes: RouteModule = (app, services) => {
  const { db } = services;
  const attempt = async (type: CredentialTypeRow, args: Inputs, reply: { code(status: number): { send(body: unknown): unknown } }) => {
    try {
      await lookUp(type, args, lookupsOf(services));
      return reply.code(202).send({});
    } catch (err) {
      if (err instanceof LookupFailed) return reply.code(400).send({ inputs: err.message });
      throw err;
    }
  };

  routeMethods<CredentialRow>(app, '/api/v2/credentials/:id/test/', objectPermission('credential', { POST: 'use' }), {
    // AWX's SubDetailAPIView with an empty serializer.
    GET: async () => ({}),
    POST: async (request, reply) => {
      const body = validBody(request, TestBody);
      const { type, stored } = await loadCredential(db, request.object.id);
      const given = Object.fromEntries(Object.entries(body.inputs ?? {}).filter(([, value]) => value !== ENCRYPTED));
      return attempt(type, { ...clearInputs(type, stored), ...given, ...metadataArgs(type, body.metadata ?? {}) }, reply);
    },
    OPTIONS: async () => testOptions('External Credential Test', 'POST {inputs, metadata} tests a secret lookup of this external credential.'),
  }, testSchemas('credential'));

  routeMethods<TypeTableRow>(app, '/api/v2/credential_types/:id/test/', objectPermission('credential_type'), {
    GET: async () => ({}),
    POST: async (request, reply) => {
      const body = validBody(request, TestBody);
      const type = await loadCredentialType(db, request.object.id);
      return attempt(type, { ...clearInputs(type, {}), ...(body.inputs ?? {}), ...metadataArgs(type, body.metadata ?? {}) }, reply);
    },
    OPTIONS: async () => testOptions('External Credential Type Test', 'POST {inputs, metadata} tests a secret lookup with these inputs.'),
  }, testSchemas('credential type'));
};
