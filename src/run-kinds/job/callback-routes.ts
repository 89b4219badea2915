/**
 * /job_templates/{id}/callback/: POST {host_config_key} (JSON or form) launches the template on the
 * calling host, without a user: the key authenticates the caller, so the route is public and
 * exempt from CSRF. GET and OPTIONS are for users who may see the template.
 */
import { isIP } from 'node:net';
import { notAuthenticated, notFound } from '../../api/errors.ts';
import { viewOptions } from '../../api/options.ts';
import { routeMethods } from '../../api/resource-routes.ts';
import { visibleObject } from '../../api/route-objects.ts';
import { launchOrRefuse } from '../../runs/launch.ts';
import { remoteNames, matchingHosts } from './callback-hosts.ts';
import { assertHostConfigKey, callbackExtraVars, callbackLauncher } from './callback.ts';
import { callbackSchemas } from './job-schemas.ts';
import { PUBLIC } from '../../api/permissions.ts';
import { jobTemplates } from '../../resources/job-templates/job-template.resource.ts';
import type { JobTemplateRow } from '../../db/tables.ts';
import type { RunRouteModule } from '../../runs/run-services.ts';

const CALLBACK_URL = '/api/v2/job_templates/:id/callback/';
const FORM_BODY_LIMIT = 64 * 1024;

export const callbackRoutes: RunRouteModule = async (app, services) => {
  await app.register(async (scope) => {
    const { db } = services;
    scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT }, (_request, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(body as string)));
    });

    routeMethods(scope, CALLBACK_URL, PUBLIC, {
      GET: async (request) => {
        if (!request.ctx.user) throw notAuthenticated();
        const template = await visibleObject<JobTemplateRow>(services, request, jobTemplates);
        const hosts = template.inventory_id ? await matchingHosts(db, template.inventory_id, await remoteNames(request.ip)) : [];
        return { host_config_key: template.host_config_key, matching_hosts: hosts.map((h) => h.name) };
      },
      POST: async (request, reply) => {
        const id = (request.params as { id: string }).id;
        const [template] = /^\d+$/.test(id) ? await db.query<Pick<JobTemplateRow, 'id' | 'host_config_key'>>('SELECT id, host_config_key FROM job_templates WHERE id = $1', [Number(id)]) : [];
        if (!template) throw notFound();
        const body = (request.body && typeof request.body === 'object' && !Array.isArray(request.body) ? request.body : {}) as Record<string, unknown>;
        assertHostConfigKey(template, body.host_config_key);
        const isJson = /^application\/json\b/i.test(request.headers['content-type'] ?? '');
        const extraVars = callbackExtraVars(body, isJson);
        const remote = await remoteNames(isIP(request.ip) ? request.ip : request.socket.remoteAddress ?? '');
        const job = (await launchOrRefuse(services.launches, request.ctx, callbackLauncher, template, { remote, extraVars })).run;
        return reply.code(201).header('Location', `/api/v2/jobs/${job.id}/`).send();
      },
      OPTIONS: async (request) => {
        if (!request.ctx.user) throw notAuthenticated();
        await visibleObject(services, request, jobTemplates);
        return {
          ...viewOptions('Job Template Callback', 'POST {host_config_key}: launches the template limited to the calling host. GET: the key and the hosts matching the caller.'),
          parses: ['application/json', 'application/x-www-form-urlencoded'],
        };
      },
    }, callbackSchemas, { csrfExempt: true });
  });
};
