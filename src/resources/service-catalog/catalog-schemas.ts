/** Schemas of the catalog's actions: launch_data/, submit/, approve/, reject/ and pending_approvals/. */
import { Type, type Static } from 'typebox';
import { OPTIONS_RESPONSE } from '../../api/action-schemas.ts';
import { listQuerySchema, objectSchema, pageSchema } from '../../api/field-schemas.ts';
import type { MethodSchema } from '../../api/route-schemas.ts';
import type { Resource } from '../../api/resource.ts';

const MAX_TEXT = 4096;

const Variables = Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.String(), Type.Null()], {
  errorMessage: 'Expected a mapping of variables (a JSON object, or JSON or YAML text).',
  description: 'Answers to the survey of the template, by variable.',
});

/** POST submit/: answers to the survey(s) and why. */
export const SubmitBody = Type.Object({
  extra_vars: Type.Optional(Variables),
  node_survey_data: Type.Optional(Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()], {
    errorMessage: 'Expected an object of answers by workflow node (its id or identifier).',
    description: "A workflow's answers to its nodes' surveys: {<node id or identifier>: {<variable>: <answer>}}.",
  })),
  justification: Type.Optional(Type.String({ maxLength: MAX_TEXT, description: 'Why the request is made, for the approvers.' })),
}, { additionalProperties: true });
export type SubmitRequest = Static<typeof SubmitBody>;

/** POST reject/: why. */
export const RejectBody = Type.Object({
  reason: Type.Optional(Type.String({ maxLength: MAX_TEXT, description: 'Why the request is rejected, for the requester.' })),
}, { additionalProperties: true });

const Survey = Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()], { description: 'A survey spec ({name, description, spec}) with password defaults as $encrypted$, or null.' });

export const LaunchData = Type.Object({
  catalog_item: Type.Integer(),
  is_workflow: Type.Boolean(),
  survey_enabled: Type.Boolean(),
  survey_spec: Survey,
  ask_variables_on_launch: Type.Boolean({ description: 'Always false: a request gives only answers to the survey.' }),
  node_surveys: Type.Array(Type.Object({ node_id: Type.Integer(), identifier: Type.String(), survey_spec: Survey })),
});

export const launchDataSchemas: Record<string, MethodSchema> = {
  GET: { summary: 'The surveys a request of the catalog item answers', response: { 200: LaunchData } },
  OPTIONS: OPTIONS_RESPONSE,
};

export const submitSchemas = (requests: Resource): Record<string, MethodSchema> => ({
  GET: { summary: 'Whether the caller may request the catalog item', response: { 200: Type.Object({ can_submit: Type.Boolean() }) } },
  POST: { summary: 'Request the catalog item', description: 'Launches at once unless the item requires approval.', body: SubmitBody, checkBody: true, response: { 201: objectSchema(requests) } },
  OPTIONS: OPTIONS_RESPONSE,
});

export const decisionSchemas = (requests: Resource, action: 'approve' | 'reject'): Record<string, MethodSchema> => ({
  GET: { summary: `Whether the caller may ${action} the request now`, response: { 200: Type.Object({ [`can_${action}`]: Type.Boolean() }) } },
  POST: action === 'approve'
    ? { summary: 'Approve a pending request and launch it', description: 'Takes no body.', response: { 200: objectSchema(requests) } }
    : { summary: 'Reject a pending request', body: RejectBody, checkBody: true, response: { 200: objectSchema(requests) } },
  OPTIONS: OPTIONS_RESPONSE,
});

export const pendingSchemas = (requests: Resource): Record<string, MethodSchema> => ({
  GET: { summary: 'The pending requests the caller may decide', querystring: listQuerySchema(requests), response: { 200: pageSchema(requests) } },
  OPTIONS: OPTIONS_RESPONSE,
});
