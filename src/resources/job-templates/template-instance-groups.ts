/** /job_templates/{id}/instance_groups/: the instance groups a template prefers, in the order they were attached. */
import type { FastifyInstance } from 'fastify';
import type { Services } from '../../api/context.ts';
import { registerAttachedGroupRoutes } from '../instance-groups/attached-groups.ts';
import { jobTemplates } from './job-template.resource.ts';

export function registerInstanceGroupRoutes(app: FastifyInstance, services: Services): void {
  registerAttachedGroupRoutes(app, services, {
    resource: jobTemplates,
    table: 'job_template_instance_groups',
    column: 'job_template_id',
    changeAction: 'administer',
  });
}
