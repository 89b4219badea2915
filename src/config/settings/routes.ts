import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Services } from '../../api/context.ts';
import { forbidden, notFound } from '../../api/errors.ts';
import { routeMethods } from '../../api/resource-routes.ts';
import { clientOf } from '../../audit/record.ts';
import type { RoutePermission } from '../../api/permissions.ts';
import { categoryOptions, listOptions } from './options.ts';
import { ALL, CHANGED, type SettingDefinition, type SettingRegistry } from './registry.ts';
import { categoryListSchemas, categorySchemas, Values } from './schemas.ts';
import { validBody } from '../../api/route-schemas.ts';

/** Superusers change settings; system auditors read them. */
const READ: RoutePermission = { kind: 'admin_or_auditor' };
const LIST_URL = '/api/v2/settings/';

const slugOf = (request: FastifyRequest) => (request.params as { slug: string }).slug;

function scopeOf(registry: SettingRegistry, request: FastifyRequest) {
  const scope = registry.settingsOf(slugOf(request));
  if (!scope) throw notFound();
  return scope;
}

const mayChange = (request: FastifyRequest) => request.ctx.user?.isSuperuser === true && request.ctx.tokenScope !== 'read';

function requireSuperuser(request: FastifyRequest): void {
  if (!request.ctx.user?.isSuperuser) throw forbidden();
}

/** /api/v2/settings/ and /api/v2/settings/<slug>/ (GET, PUT, PATCH, DELETE, OPTIONS). */
export function registerSettingsRoutes(app: FastifyInstance, services: Services): void {
  const { settings } = services;
  const { registry } = settings;
  // "changed" answers only the settings whose value is not their default, also after a write.
  const show = (request: FastifyRequest, scope: readonly SettingDefinition[]) => settings.display(scope, slugOf(request) === CHANGED.slug);

  routeMethods(app, LIST_URL, READ, {
    GET: async () => {
      const results = [ALL, CHANGED, ...registry.categories()].map((c) => ({ url: `${LIST_URL}${c.slug}/`, slug: c.slug, name: c.name }));
      return { count: results.length, next: null, previous: null, results };
    },
    OPTIONS: async () => listOptions(),
  }, categoryListSchemas);

  routeMethods(app, `${LIST_URL}:slug/`, READ, {
    GET: async (request) => show(request, scopeOf(registry, request)),
    OPTIONS: async (request) => {
      const scope = scopeOf(registry, request);
      const canChange = mayChange(request);
      return categoryOptions(settings, slugOf(request), scope, canChange);
    },
    PATCH: async (request) => {
      const scope = scopeOf(registry, request);
      requireSuperuser(request);
      await settings.update(request.ctx, scope, validBody(request, Values), 'update', clientOf(request));
      return show(request, scope);
    },
    PUT: async (request) => {
      const scope = scopeOf(registry, request);
      requireSuperuser(request);
      await settings.update(request.ctx, scope, validBody(request, Values), 'replace', clientOf(request));
      return show(request, scope);
    },
    DELETE: async (request, reply) => {
      const scope = scopeOf(registry, request);
      requireSuperuser(request);
      await settings.reset(request.ctx, scope, clientOf(request));
      return reply.code(204).send();
    },
  }, categorySchemas);
}
