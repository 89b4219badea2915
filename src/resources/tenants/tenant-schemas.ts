/** The bodies and answers of the tenants' own endpoints, for the OpenAPI document (docs/tenants.md). */
import { Type } from 'typebox';

const Quota = Type.Object(
  {
    max_concurrent_jobs: Type.Optional(Type.Union([Type.Integer({ minimum: 0 }), Type.Null()])),
    max_daily_launches: Type.Optional(Type.Union([Type.Integer({ minimum: 0 }), Type.Null()])),
    max_hosts: Type.Optional(Type.Union([Type.Integer({ minimum: 0 }), Type.Null()])),
    max_storage_mb: Type.Optional(Type.Union([Type.Integer({ minimum: 0 }), Type.Null()])),
  },
  { description: 'Quotas; null or 0 is unlimited.' },
);

const Branding = Type.Object(
  {
    logo_url: Type.Optional(Type.String({ description: 'An http or https URL.' })),
    primary_color: Type.Optional(Type.String({ description: '#RRGGBB' })),
    secondary_color: Type.Optional(Type.String({ description: '#RRGGBB' })),
    custom_domain: Type.Optional(Type.String({ description: 'The host name the console is served on for this tenant; unique.' })),
    contact_email: Type.Optional(Type.String()),
  },
  { description: "The tenant's branding; an empty string clears a field." },
);

export const TenantCreateBody = Type.Object({
  name: Type.String({ description: 'The name of the tenant root organization (free as an organization name).' }),
  description: Type.Optional(Type.String()),
  admin_username: Type.String({ description: "The username of the tenant's admin user, made with it." }),
  admin_email: Type.String(),
  admin_password: Type.Optional(Type.String({ description: 'Generated when left out, and answered once as admin_password.' })),
  quota: Type.Optional(Quota),
  branding: Type.Optional(Branding),
});

export const TenantUpdateBody = Type.Object({
  description: Type.Optional(Type.String()),
  quota: Type.Optional(Quota),
  branding: Type.Optional(Branding),
});

export const Tenant = Type.Object({ id: Type.Integer(), type: Type.Literal('tenant') }, { additionalProperties: true });

/** The tenants' 400: every bad field, by its name in the body. */
export const TenantBodyErrors = Type.Object({
  errors: Type.Array(Type.Object({ field: Type.String(), message: Type.String() })),
});

export const TenantsQuery = Type.Object({
  page: Type.Optional(Type.Integer()),
  page_size: Type.Optional(Type.Integer()),
  search: Type.Optional(Type.String()),
  order_by: Type.Optional(Type.String()),
});

export const DeleteQuery = Type.Object({ confirm: Type.Optional(Type.String({ description: 'true: delete the tenant and everything in it.' })) });

export const BrandingQuery = Type.Object({ host: Type.Optional(Type.String({ description: 'The host name the console is served on; the request Host when left out.' })) });

export const BrandingAnswer = Type.Object({
  tenant: Type.Integer(),
  organization: Type.Integer(),
  name: Type.String(),
  logo_url: Type.String(),
  primary_color: Type.String(),
  secondary_color: Type.String(),
  custom_domain: Type.String(),
  contact_email: Type.String(),
});
