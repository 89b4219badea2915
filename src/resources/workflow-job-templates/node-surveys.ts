/** The surveys of a workflow's nodes: the enabled survey of each node's job template or workflow job template. */
import type { Queryable } from '../../db/database.ts';
import { activeSurvey } from '../job-templates/launch-description.ts';
import type { SurveySpec } from '../job-templates/survey-spec.ts';

export interface NodeSurvey {
  /** The workflow job template node. */
  nodeId: number;
  identifier: string;
  /** The node's template, whose survey it is. */
  template: { id: number; kind: 'job_template' | 'workflow_job_template'; name: string; survey_enabled: boolean; survey_spec: unknown };
  survey: SurveySpec;
}

/** The nodes of the workflow job template whose template has an enabled survey, by identifier, in node order. */
export async function nodeSurveys(db: Queryable, workflowTemplateId: number): Promise<Map<string, NodeSurvey>> {
  const rows = await db.query<{ id: number; identifier: string; template_id: number; kind: 'job_template' | 'workflow_job_template'; name: string; survey_enabled: boolean; survey_spec: unknown }>(
    `SELECT n.id, n.identifier, t.id AS template_id, t.kind, t.name, t.survey_enabled, t.survey_spec
     FROM workflow_job_template_nodes n
     JOIN (SELECT id, 'job_template' AS kind, name, survey_enabled, survey_spec FROM job_templates
           UNION ALL SELECT id, 'workflow_job_template', name, survey_enabled, survey_spec FROM workflow_job_templates) t ON t.id = n.unified_job_template_id
     WHERE n.workflow_job_template_id = $1 ORDER BY n.id`,
    [workflowTemplateId],
  );
  const surveys = new Map<string, NodeSurvey>();
  for (const row of rows) {
    const template = { id: row.template_id, kind: row.kind, name: row.name, survey_enabled: row.survey_enabled, survey_spec: row.survey_spec };
    const survey = activeSurvey(template);
    if (survey) surveys.set(row.identifier, { nodeId: row.id, identifier: row.identifier, template, survey });
  }
  return surveys;
}
