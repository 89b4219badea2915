/** Endpoints of credentials beyond the conventional ones: copy/, and the audit event of every read. */
import { createObject } from '../../api/crud.ts';
import { copyRouteSchemas, CopyBody } from '../../api/action-schemas.ts';
import { validBody } from '../../api/route-schemas.ts';
import { copyOptions } from '../../api/options.ts';
import type { RouteModule } from '../../api/extra-routes.ts';
import { routeMethods } from '../../api/resource-routes.ts';
import { serializeRow } from '../../api/serialize.ts';
import { clientOf, recordAudit } from '../../audit/record.ts';

import { objectPermission } from '../../api/permissions.ts';
import { allows } from '../../api/route-objects.ts';
import { decryptStored, type Inputs } from './credential-inputs.ts';
import { credentials } from './credential.resource.ts';
import type { CredentialRow } from '../../db/tables.ts';

const DETAIL = '/api/v2/credentials/:id/';

/** What the audit of a read takes from the credential as answered. */
interface AnsweredCredential {
  id: number;
  name: string;
  credential_type: number;
  organization: number | null;
}

export const credentialRoutes: RouteModule = (app, services) => {
  const { db } = services;
  routeMethods<CredentialRow>(app, `${DETAIL}copy/`, objectPermission('credential', { POST: 'copy' }), {
    GET: async (request) => {
      const can = await allows(credentials, 'copy', request.ctx, db, request.object);
      return { can_copy: can, can_copy_without_user_input: can, templates_unable_to_copy: [], credentials_unable_to_copy: [], inventories_unable_to_copy: [] };
    },
    OPTIONS: async () => copyOptions('Credential Copy', 'POST {"name": ...} makes a copy of the credential, secrets included.'),
    POST: async (request, reply) => {
      const source = request.object;
      const { name } = validBody(request, CopyBody);
      const row = await db.transaction(async (tx) => {
        const owner = source.organization_id === null ? { user: request.ctx.user!.id } : { organization: source.organization_id };
        const values = { name, description: source.description, credential_type: source.credential_type_id, inputs: decryptStored(source.inputs as Inputs), ...owner };
        return createObject<CredentialRow>(tx, request.ctx, credentials, values);
      });
      return reply.code(201).send(await serializeRow(db, request.ctx, credentials, row));
    },
  }, copyRouteSchemas('credential'));

  // Reading one credential is an audit event: who read which (never its inputs).
  app.addHook('onSend', async (request, reply, payload) => {
    if (request.method !== 'GET' || reply.statusCode !== 200 || request.routeOptions.url !== DETAIL || typeof payload !== 'string') return payload;
    const body: AnsweredCredential = JSON.parse(payload);
    await recordAudit(db, {
      type: 'credential.read',
      ctx: request.ctx,
      target: { type: 'credential', id: body.id, name: body.name },
      client: clientOf(request),
      detail: { credential_type: body.credential_type, organization: body.organization },
    });
    return payload;
  });
};
