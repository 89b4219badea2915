/**
 * Who reads scan results: the organization's admins and auditors, and whoever may see the run
 * scanned or the template launched (a refused launch left only the template).
 */
import { seesEverything, type AccessPolicy } from '../../api/access.ts';
import { organizationAdminsOrAuditors } from '../organizations/organization-scoped-access.ts';

const refuse = () => false;

export const scanResultAccess: AccessPolicy = {
  visible: (ctx, alias, params) => {
    if (seesEverything(ctx)) return null;
    const resources = ctx.service.resources;
    const runs = resources.get('unified_job').access.visible(ctx, 'sr_run', params) ?? 'true';
    const templates = resources.get('job_template').access.visible(ctx, 'sr_template', params) ?? 'true';
    return `(${organizationAdminsOrAuditors(ctx, alias, params)}
      OR EXISTS (SELECT 1 FROM unified_jobs sr_run WHERE sr_run.id = ${alias}.unified_job_id AND ${runs})
      OR EXISTS (SELECT 1 FROM job_templates sr_template WHERE sr_template.id = ${alias}.unified_job_template_id AND ${templates}))`;
  },
  canCreate: refuse,
  canChange: refuse,
  canDelete: refuse,
  canAttach: refuse,
};
