/**
 * The tenants' endpoints (docs/tenants.md): the list and provisioning, detail, PATCH of quota and
 * branding, DELETE with confirmation, recalculate/, and the public branding lookup. Superusers
 * only, but for branding.
 */
import type { FastifyRequest } from 'fastify';
import { AnyObject, OPTIONS_RESPONSE } from '../../api/action-schemas.ts';
import { badRequest, conflict, notFound } from '../../api/errors.ts';
import type { RouteModule } from '../../api/extra-routes.ts';
import { email, json, text, type Field } from '../../api/fields.ts';
import { listPage, type Query } from '../../api/list.ts';
import { actionOptions, detailOptions, listOptions, viewOptions } from '../../api/options.ts';
import { objectPermission, PUBLIC, SUPERUSER } from '../../api/permissions.ts';
import { routeMethods, type ObjectRequest } from '../../api/resource-routes.ts';
import { validBody } from '../../api/route-schemas.ts';
import { serializeRow } from '../../api/serialize.ts';
import type { TenantRow } from '../../db/tables.ts';
import { provisionTenant, readProvisioning } from './provision.ts';
import { deleteTenant } from './tenant-delete.ts';
import {
  BrandingAnswer, BrandingQuery, DeleteQuery, Tenant, TenantBodyErrors, TenantCreateBody, TenantsQuery, TenantUpdateBody,
} from './tenant-schemas.ts';
import { TENANTS_URL } from './tenant.resource.ts';
import { updateTenant } from './tenant-update.ts';
import { normalizeHost } from './tenant-values.ts';
import { recalculateTenant } from './usage.ts';

export const BRANDING_URL = '/api/v2/branding/';

/** What POST and PATCH take, as OPTIONS describes them. */
const QUOTA_FIELD = json({ helpText: 'max_concurrent_jobs, max_daily_launches, max_hosts, max_storage_mb: each a whole number, or null (or 0) for no limit.' });
const BRANDING_FIELD = json({ helpText: 'logo_url (http or https), primary_color and secondary_color (#RRGGBB), custom_domain (a host name), contact_email.' });
const CREATE_FIELDS: Record<string, Field> = {
  name: text({ required: true, maxLength: 499, helpText: 'The tenant root organization\'s name.' }),
  description: text(),
  admin_username: text({ required: true, maxLength: 150, helpText: "The tenant admin's username." }),
  admin_email: email({ required: true }),
  admin_password: text({ helpText: 'Generated and answered once when left out.' }),
  quota: QUOTA_FIELD,
  branding: BRANDING_FIELD,
};
const UPDATE_FIELDS: Record<string, Field> = { description: text(), quota: QUOTA_FIELD, branding: BRANDING_FIELD };
const writeMeta = (fields: Record<string, Field>) => (actionOptions('', '', { GET: {}, POST: fields }).actions as { POST: unknown }).POST;

/** What a tenant shows beyond its declared fields (decorate), for OPTIONS' actions.GET. */
const SHOWN_FIELDS: Record<string, Field> = {
  name: text({ readOnly: true, helpText: "The organization's name." }),
  description: text({ readOnly: true, helpText: "The organization's description." }),
  quota: json({ readOnly: true, helpText: 'max_concurrent_jobs, max_daily_launches, max_hosts, max_storage_mb (null or 0: no limit).' }),
  usage: json({ readOnly: true, helpText: 'concurrent_jobs, daily_launches, daily_date, hosts, storage_mb, storage_bytes, recalculated.' }),
  branding: json({ readOnly: true, helpText: 'logo_url, primary_color, secondary_color, custom_domain, contact_email.' }),
};
const shownMeta = () => (actionOptions('', '', { GET: SHOWN_FIELDS, POST: {} }).actions as { GET: Record<string, unknown> }).GET;

/** OPTIONS of the list or a tenant, with what decorate adds among the fields it answers. */
function describeTenants(meta: Record<string, unknown>, write: { method: string; fields: Record<string, Field> } | null): Record<string, unknown> {
  const actions = meta.actions as Record<string, Record<string, unknown>>;
  const { created, modified, ...own } = actions.GET;
  actions.GET = { ...own, ...shownMeta(), created, modified };
  if (write) actions[write.method] = writeMeta(write.fields) as Record<string, unknown>;
  return meta;
}

const confirmed = (request: FastifyRequest) => /^(true|1|yes)$/i.test(String((request.query as { confirm?: string }).confirm ?? ''));

export const tenantRoutes: RouteModule = (app, services) => {
  const { db } = services;
  const tenants = services.resources.get('tenant');
  const tenantBody = async (request: FastifyRequest, row: TenantRow) => serializeRow(db, request.ctx, tenants, row);

  routeMethods(app, TENANTS_URL, SUPERUSER, {
    GET: async (request) => listPage(db, request.ctx, tenants, TENANTS_URL, request.query as Query),
    POST: async (request, reply) => {
      const body = validBody(request, AnyObject);
      const provisioning = await readProvisioning(db, request.ctx, body);
      const tenant = await provisionTenant(db, request.ctx, provisioning);
      const out = await tenantBody(request, tenant);
      // The generated password is shown here only: it is stored hashed, as every password.
      return reply.code(201).send(provisioning.generatedPassword ? { ...out, admin_password: provisioning.adminPassword } : out);
    },
    OPTIONS: async (request) =>
      describeTenants(listOptions(services.resources, tenants, false), request.ctx.tokenScope === 'read' ? null : { method: 'POST', fields: CREATE_FIELDS }),
  }, {
    GET: { summary: 'List tenants', querystring: TenantsQuery },
    POST: { summary: 'Provision a tenant', body: TenantCreateBody, checkBody: AnyObject, response: { 201: Tenant, 400: TenantBodyErrors } },
    OPTIONS: OPTIONS_RESPONSE,
  });

  routeMethods<TenantRow>(app, `${TENANTS_URL}:id/`, objectPermission('tenant', { PATCH: 'change', DELETE: 'change' }), {
    GET: async (request) => tenantBody(request, request.object),
    PATCH: async (request) => {
      const body = validBody(request, AnyObject);
      return tenantBody(request, await updateTenant(db, request.ctx, request.object, body));
    },
    DELETE: async (request, reply) => {
      if (!confirmed(request)) {
        throw conflict('Deleting a tenant removes its organization and everything in it (templates, inventories, credentials, projects, runs...): repeat with ?confirm=true.');
      }
      await deleteTenant(db, request.ctx, request.object.id, services.env.projectsRoot);
      return reply.code(204).send();
    },
    OPTIONS: async (request) =>
      describeTenants(detailOptions(services.resources, tenants, false), request.ctx.tokenScope === 'read' ? null : { method: 'PATCH', fields: UPDATE_FIELDS }),
  }, {
    GET: { summary: 'Read a tenant', response: { 200: Tenant } },
    PATCH: { summary: "Change a tenant's description, quota or branding", body: TenantUpdateBody, checkBody: AnyObject, response: { 200: Tenant, 400: TenantBodyErrors } },
    DELETE: { summary: 'Delete a tenant and everything in it (?confirm=true)', querystring: DeleteQuery },
    OPTIONS: OPTIONS_RESPONSE,
  });

  routeMethods<TenantRow>(app, `${TENANTS_URL}:id/recalculate/`, objectPermission('tenant', { POST: 'recalculate' }), {
    GET: async (request: ObjectRequest<TenantRow>) => ({ usage: (await tenantBody(request, request.object)).usage }),
    POST: async (request) => {
      await recalculateTenant(db, services.env.projectsRoot, request.object.id);
      return tenantBody(request, request.object);
    },
    OPTIONS: async () => actionOptions('Tenant Recalculate', "GET: the tenant's usage as stored. POST: recomputes hosts, storage and active runs, and answers the tenant.", { GET: {}, POST: {} }),
  }, {
    GET: { summary: "A tenant's stored usage" },
    POST: { summary: "Recompute a tenant's usage", response: { 200: Tenant } },
    OPTIONS: OPTIONS_RESPONSE,
  });

  routeMethods(app, BRANDING_URL, PUBLIC, {
    GET: async (request) => {
      const given = (request.query as { host?: string | string[] }).host;
      const asked = [given].flat().pop() ?? request.hostname;
      if (!asked) throw badRequest('Give the host name: ?host=<hostname>.');
      const host = normalizeHost(asked);
      const [found] = host
        ? await db.query<{ id: number; organization_id: number; name: string; logo_url: string; primary_color: string; secondary_color: string; custom_domain: string; contact_email: string }>(
            `SELECT t.id, t.organization_id, o.name, t.logo_url, t.primary_color, t.secondary_color, t.custom_domain, t.contact_email
             FROM tenants t JOIN organizations o ON o.id = t.organization_id WHERE t.custom_domain = $1`,
            [host],
          )
        : [];
      if (!found) throw notFound('No tenant is branded for this host.');
      const { id, organization_id, ...branding } = found;
      return { tenant: id, organization: organization_id, ...branding };
    },
    OPTIONS: async () => viewOptions('Branding', "The branding of the tenant whose custom domain is ?host= (the request's host when left out); needs no authentication."),
  }, {
    GET: { summary: 'The branding of a host', querystring: BrandingQuery, response: { 200: BrandingAnswer } },
    OPTIONS: OPTIONS_RESPONSE,
  });
};
