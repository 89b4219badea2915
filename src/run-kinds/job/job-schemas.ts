/**
 * Schemas of the job endpoints that take a body: launch/, relaunch/ and callback/. launch/ checks
 * that its body is an object, relaunch/ its whole body; the prompts' values are the launchers' to
 * check (accept-prompts.ts, callback.ts), as AWX's serializers do.
 */
import { Type } from 'typebox';
import { AnyObject, OPTIONS_RESPONSE, StartedRun } from '../../api/action-schemas.ts';
import type { MethodSchema } from '../../api/route-schemas.ts';

const Ids = (what: string) => Type.Array(Type.Integer({ minimum: 1 }), { description: `IDs of the ${what}.` });
const ExtraVars = Type.Union([Type.Object({}, { additionalProperties: true }), Type.String({ description: 'JSON or YAML.' })]);
const CredentialPasswords = Type.Object({}, {
  additionalProperties: Type.String(),
  description: 'Passwords the credentials ask for at launch, by name (ssh_password, become_password, vault_password...).',
});

/** POST launch/: prompts the template's ask_*_on_launch flags allow (others are ignored and reported), survey answers in extra_vars. */
export const LaunchBody = Type.Object(
  {
    extra_vars: Type.Optional(ExtraVars),
    inventory: Type.Optional(Type.Integer({ minimum: 1 })),
    credentials: Type.Optional(Ids('credentials')),
    credential_passwords: Type.Optional(CredentialPasswords),
    limit: Type.Optional(Type.String()),
    job_tags: Type.Optional(Type.String()),
    skip_tags: Type.Optional(Type.String()),
    job_type: Type.Optional(Type.Enum(['run', 'check'])),
    verbosity: Type.Optional(Type.Integer({ minimum: 0, maximum: 5 })),
    diff_mode: Type.Optional(Type.Boolean()),
    scm_branch: Type.Optional(Type.String()),
    forks: Type.Optional(Type.Integer({ minimum: 0 })),
    timeout: Type.Optional(Type.Integer({ minimum: 0 })),
    job_slice_count: Type.Optional(Type.Integer({ minimum: 1 })),
    execution_environment: Type.Optional(Type.Integer({ minimum: 1 })),
    labels: Type.Optional(Ids('labels')),
    instance_groups: Type.Optional(Ids('instance groups')),
  },
  { additionalProperties: true },
);

const Launched = Type.Intersect([StartedRun, Type.Object({ job: Type.Integer(), ignored_fields: Type.Object({}, { additionalProperties: true }) })]);

export const launchSchemas: Record<string, MethodSchema> = {
  GET: { summary: 'What a launch needs (passwords, prompts, survey) and what it would use', response: { 200: Type.Object({ can_start_without_user_input: Type.Boolean() }, { additionalProperties: true }) } },
  // The body must be an object; its prompts are checked by acceptPrompts, which ignores those not asked for.
  POST: { summary: 'Launch a job from the template', body: LaunchBody, checkBody: AnyObject, response: { 201: Launched } },
  OPTIONS: OPTIONS_RESPONSE,
};

/**
 * The passwords of a launch or relaunch as checked up front: an object (or null, none given); which
 * ones are needed and given is the launcher's to say (credential-passwords.ts).
 */
const GivenPasswords = Type.Union([AnyObject, Type.Null()], { errorMessage: 'Expected a dictionary of passwords.', description: 'Passwords the credentials ask for at launch, by name.' });

/** POST relaunch/: on all hosts or only the failed ones, with the passwords the credentials ask for. */
export const RelaunchBody = Type.Object({
  hosts: Type.Optional(Type.Union([Type.Enum(['all', 'failed']), Type.Null()], { default: 'all', errorMessage: '"{input}" is not a valid choice.' })),
  credential_passwords: Type.Optional(GivenPasswords),
}, { additionalProperties: true });

export const relaunchSchemas: Record<string, MethodSchema> = {
  GET: { summary: 'The passwords a relaunch needs and the host counts', response: { 200: Type.Object({ passwords_needed_to_start: Type.Array(Type.String()) }, { additionalProperties: true }) } },
  POST: { summary: 'Relaunch the job', body: RelaunchBody, checkBody: true, response: { 201: Type.Intersect([StartedRun, Type.Object({ job: Type.Integer() })]) } },
  OPTIONS: OPTIONS_RESPONSE,
};

/** POST callback/: the template's host_config_key, as JSON or a form; extra_vars from JSON bodies only. */
export const CallbackBody = Type.Object({ host_config_key: Type.String(), extra_vars: Type.Optional(ExtraVars) });

export const callbackSchemas: Record<string, MethodSchema> = {
  GET: { summary: 'The host config key and the hosts matching the caller', response: { 200: Type.Object({ host_config_key: Type.String(), matching_hosts: Type.Array(Type.String()) }) } },
  POST: {
    summary: 'Launch the template on the calling host (provisioning callback)',
    consumes: ['application/json', 'application/x-www-form-urlencoded'],
    body: CallbackBody,
    response: { 201: { type: 'null', description: 'Launched: Location names the job.' } },
  },
  OPTIONS: OPTIONS_RESPONSE,
};
