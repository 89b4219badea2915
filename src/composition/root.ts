/**
 * The composition root: every part of the service, listed once. buildApp (server/app.ts) and the
 * management commands walk it; nothing registers itself by being imported.
 */
import { DASHBOARD_URL, dashboardRoutes } from '../resources/dashboard/dashboard-routes.ts';
import { ROLE_METADATA_URL, roleMetadataRoutes } from '../resources/role-definitions/role-metadata-routes.ts';
import { ANALYTICS_URL, analyticsRoutes } from '../resources/analytics/analytics-routes.ts';
import { composeResource, type Resource } from '../api/resource.ts';
import { ResourceSet } from '../api/resource-set.ts';
import { registerResourceRoutes } from '../api/resource-routes.ts';
import { registerLoginRoutes } from '../auth/login-routes.ts';
import { registerWebauthnRoutes } from '../auth/webauthn/webauthn-routes.ts';
import { authMethodsRoutes } from '../auth/external/sso-methods.ts';
import { registerOAuth2Routes } from '../auth/oauth2-routes.ts';
import { registerSamlRoutes } from '../auth/saml/saml-routes.ts';
import { oidcAndSocialSsoMethod, registerSsoRoutes } from '../auth/sso/sso-routes.ts';
import { samlSsoMethod } from '../auth/saml/saml-config.ts';
import type { SsoMethod } from '../auth/external/sso-methods.ts';
import { registerSettingsRoutes } from '../config/settings/routes.ts';
import { registerLiveOutput } from '../live/routes.ts';
import { registerRootRoutes } from '../server/root-routes.ts';
import { credentialInputSecrets } from '../resources/credentials/credential-rotation.ts';
import { credentialRoutes } from '../resources/credentials/credential-routes.ts';
import { externalTestRoutes } from '../resources/credential-input-sources/external-test-routes.ts';
import { groupRoutes } from '../resources/groups/group-routes.ts';
import { hostRoutes } from '../resources/hosts/host-routes.ts';
import { BULK_URL, bulkRoutes } from '../resources/bulk/bulk-routes.ts';
import { executionEnvironmentRoutes } from '../resources/execution-environments/execution-environment-routes.ts';
import { accessListRoutes } from '../resources/roles/access-list-routes.ts';
import { instanceRoutes } from '../resources/instances/instance-routes.ts';
import { ownerGroupRoutes } from '../resources/instance-groups/owner-group-routes.ts';
import { inventoryRoutes } from '../resources/inventories/inventory-routes.ts';
import { constructedInventoryRoutes } from '../resources/inventories/constructed-routes.ts';
import { inventorySourceRoutes } from '../resources/inventory-sources/source-routes.ts';
import { dynamicChoicesRoutes } from '../resources/job-templates/dynamic-choices/choices-routes.ts';
import { jobTemplateRoutes } from '../resources/job-templates/job-template-routes.ts';
import { surveyPasswordSecrets } from '../resources/job-templates/survey-rotation.ts';
import { notificationTemplateSecrets } from '../resources/notification-templates/notification-rotation.ts';
import { driftRoutes } from '../resources/drift/drift-routes.ts';
import { eventRuleRoutes } from '../resources/event-rules/event-rule-routes.ts';
import { EVENT_RULE_KEY_PURPOSE } from '../resources/event-rules/receiving-rules.ts';
import { edaReceiverRoutes } from '../eda/receiver-routes.ts';
import { outboundWebhookRoutes } from '../resources/outbound-webhooks/outbound-webhook-routes.ts';
import { OUTBOUND_WEBHOOK_KEY_PURPOSE } from '../resources/outbound-webhooks/signing-key.ts';
import { policyRoutes } from '../resources/policies/policy-routes.ts';
import { scannerRoutes } from '../resources/scanners/scanner-routes.ts';
import { catalogItemRoutes } from '../resources/service-catalog/catalog-routes.ts';
import { serviceRequestFollower } from '../resources/service-catalog/request-follower.ts';
import { serviceRequestRoutes } from '../resources/service-catalog/request-routes.ts';
import { serviceRequestSecrets } from '../resources/service-catalog/request-secrets.ts';
import { tenantRoutes } from '../resources/tenants/tenant-routes.ts';
import { TENANTS_URL } from '../resources/tenants/tenant.resource.ts';
import { policyGate } from '../policy/gate.ts';
import { quotaGate } from '../quotas/quota-gate.ts';
import { tenantUsageFollower } from '../quotas/usage-follower.ts';
import { connectionVariablesGate } from '../runs/connection-variables-gate.ts';
import { notificationTemplateRoutes } from '../resources/notification-templates/notification-template-routes.ts';
import { projectRoutes } from '../resources/projects/project-routes.ts';
import { scheduleRoutes } from '../resources/schedules/schedule-routes.ts';
import { ScheduleKinds, type ScheduleKind } from '../resources/schedules/schedulable.ts';
import { nodeEdgeRoutes } from '../resources/workflow-job-templates/node-edges.ts';
import { workflowTemplateRoutes } from '../resources/workflow-job-templates/workflow-template-routes.ts';
import { adHocCommandKind } from '../run-kinds/ad-hoc-command/kind.ts';
import { inventoryUpdateKind } from '../run-kinds/inventory-update/kind.ts';
import { jobCredentialPasswordSecrets, jobSurveyPasswordSecrets } from '../run-kinds/job/job-secret-rotation.ts';
import { jobKind } from '../run-kinds/job/kind.ts';
import { templateWebhooks } from '../runs/webhooks/template-webhooks.ts';
import { templateWebhookKeySecrets, webhookKeySecrets } from '../resources/webhooks/webhook-key-rotation.ts';
import { projectUpdateKind } from '../run-kinds/project-update/kind.ts';
import { systemJobKind } from '../run-kinds/system-job/kind.ts';
import { workflowApprovalKind } from '../run-kinds/workflow-approval/kind.ts';
import { workflowJobKind } from '../run-kinds/workflow-job/kind.ts';
import type { Gate } from '../runs/gates.ts';
import { scannerGate } from '../scanners/gate.ts';
import { createLaunchService } from '../runs/launch.ts';
import { RunKinds, type RunFollower, type RunKind } from '../runs/run-kind.ts';
import { POLICY_RESOURCE_TYPES } from '../resources/policies/policy-resource-types.ts';
import { EVENT_RULE_RUN_KINDS } from '../resources/event-rules/actions.ts';
import { UNIFIED_JOB_TYPES } from '../resources/unified-jobs/unified-job.resource.ts';
import { WEBHOOK_EVENT_TYPES } from '../resources/outbound-webhooks/webhook-fields.ts';
import type { RunRouteModule, RunServices } from '../runs/run-services.ts';
import type { SecretStore } from '../secrets/rotation.ts';
import { RESOURCES } from './resources.ts';
import { serviceCaches } from './caches.ts';
import type { ServiceLogger } from '../api/logger.ts';
import { createLogShipper } from '../logging/shipper.ts';
import { registerLoggingTestRoute } from '../logging/test-route.ts';
import { createRootLog, structuredServiceLogger, type RootLog } from '../logging/structured.ts';
import { Tracing } from '../telemetry/tracing.ts';
import { OBSERVABILITY_URL, observabilityRoutes } from '../telemetry/tracing-routes.ts';

export { RESOURCES };
export { SETTING_CATEGORIES, settingRegistry } from './settings.ts';

/** Every run kind: each folder under src/run-kinds/ exports one. */
export const RUN_KINDS: readonly RunKind[] = [
  jobKind, adHocCommandKind, projectUpdateKind, inventoryUpdateKind,
  systemJobKind, workflowJobKind, workflowApprovalKind,
];

/**
 * The template kinds schedules launch, from the run kinds with a schedule launcher: the template's
 * resource name, the action creating a schedule needs on it and the launcher a due schedule goes through.
 */
export function scheduleKinds(runKinds: RunKinds): ScheduleKind[] {
  return runKinds.withTrigger('schedule').map((kind) => {
    const template = runKinds.templateResource(kind);
    if (!template) throw new Error(`run kind ${kind.name} has a schedule launcher but no template resource`);
    return { template: template.name, action: kind.templateAction ?? 'execute', launcher: kind.launchers.schedule, facet: kind.template };
  });
}

/** The conventional endpoints of every top-level resource (list, detail, OPTIONS, related lists...). */
const resourceRoutes: RunRouteModule = (app, services) => {
  for (const resource of services.resources.all.filter((r) => r.topLevel)) registerResourceRoutes(app, services, resource);
};

/** The webhook key and receivers of the templates of every run kind with a webhook launcher. */
const webhookRoutes: RunRouteModule = async (app, services) => {
  for (const kind of services.runKinds.withTrigger('webhook')) {
    const templates = services.runKinds.templateResource(kind);
    if (!templates) throw new Error(`run kind ${kind.name} has a webhook launcher but no template resource`);
    await templateWebhooks(templates, kind.launchers.webhook)(app, services);
  }
};

/** What each run kind adds: its run endpoints (stdout, events, cancel) and how it is launched. */
const runKindRoutes: RunRouteModule = async (app, services) => {
  for (const kind of services.runKinds.all) for (const register of kind.routes) await register(app, services);
};

/**
 * Every endpoint, in registration order: the API root, each resource's conventional ones, what
 * resources and run kinds add, settings, login, OAuth2 and the live output websocket.
 */
export const ROUTES: readonly RunRouteModule[] = [
  (app, services) => registerRootRoutes(app, services, { settings: '/api/v2/settings/', dashboard: DASHBOARD_URL, tenants: TENANTS_URL, svc_analytics: ANALYTICS_URL, observability: OBSERVABILITY_URL, bulk: BULK_URL, role_metadata: ROLE_METADATA_URL }),
  dashboardRoutes,
  roleMetadataRoutes,
  analyticsRoutes,
  observabilityRoutes,
  resourceRoutes,
  credentialRoutes, externalTestRoutes, projectRoutes, inventorySourceRoutes, ownerGroupRoutes, jobTemplateRoutes, hostRoutes, bulkRoutes, groupRoutes, inventoryRoutes, constructedInventoryRoutes, instanceRoutes, accessListRoutes, executionEnvironmentRoutes,
  scheduleRoutes,
  workflowTemplateRoutes, nodeEdgeRoutes, dynamicChoicesRoutes,
  notificationTemplateRoutes,
  driftRoutes,
  eventRuleRoutes, edaReceiverRoutes,
  outboundWebhookRoutes,
  policyRoutes,
  scannerRoutes,
  catalogItemRoutes, serviceRequestRoutes,
  tenantRoutes,
  runKindRoutes,
  webhookRoutes,
  registerSettingsRoutes, registerLoggingTestRoute, registerLoginRoutes, registerWebauthnRoutes, registerOAuth2Routes, registerSamlRoutes, registerSsoRoutes, registerLiveOutput,
  authMethodsRoutes,
];

/** What keeps a state of its own in step with runs, told of each run's end in the transaction storing it (finishRun). */
export const RUN_FOLLOWERS: readonly RunFollower[] = [serviceRequestFollower, tenantUsageFollower];

/** The browser sign-in methods GET /api/v2/auth/ and the console's login page list. */
export const SSO_METHODS: readonly SsoMethod[] = [samlSsoMethod, oidcAndSocialSsoMethod];

/**
 * The checks every launch passes, in this order: tenant quotas first (docs/tenants.md#quotas), policy
 * (docs/policy.md#at-launch), then the scanners (docs/scanners.md#at-launch).
 */
export const GATES: readonly Gate[] = [quotaGate, connectionVariablesGate, policyGate, scannerGate];

/** Everything regenerate_secret_key re-encrypts besides secret settings. */
export const SECRET_STORES: readonly SecretStore[] = [credentialInputSecrets, jobCredentialPasswordSecrets, jobSurveyPasswordSecrets, surveyPasswordSecrets,
  ...templateWebhookKeySecrets(RUN_KINDS),
  webhookKeySecrets('event_rules', 'event rule webhook keys', EVENT_RULE_KEY_PURPOSE),
  webhookKeySecrets('outbound_webhooks', 'outbound webhook signing keys', OUTBOUND_WEBHOOK_KEY_PURPOSE),
  notificationTemplateSecrets,
  serviceRequestSecrets,
];

/** What the service is made of beyond its database, settings and environment. */
export type BaseServices = Omit<RunServices, 'resources' | 'runKinds' | 'launches' | 'scheduleKinds' | 'ssoMethods' | 'caches' | 'logger' | 'logShipper' | 'tracing'>;

export interface CompositionOptions {
  /** Gates instead of GATES (tests of the launch pipeline). */
  gates?: readonly Gate[];
  /** Resources after RESOURCES and run kinds after RUN_KINDS: what a test adds as if it were listed here. */
  extraResources?: readonly Resource[];
  extraRunKinds?: readonly RunKind[];
  /** Sign-in methods after SSO_METHODS. */
  extraSsoMethods?: readonly SsoMethod[];
  /** Where background loops report, instead of the service log. */
  logger?: ServiceLogger;
  /** The service log (JSON lines on standard output unless given). */
  log?: RootLog;
}

/**
 * The services of one running service: its resources known by name, run kinds, schedule kinds and
 * the launch service with its gates. Each call makes its own; nothing is kept between compositions.
 */
export function composeServices(base: BaseServices, options: CompositionOptions = {}): RunServices {
  const declared = [...RESOURCES, ...(options.extraResources ?? [])];
  // An extra kind named as a listed one takes its place (benchmarks swap the job runner).
  const extra = options.extraRunKinds ?? [];
  const kinds = [...RUN_KINDS.filter((k) => !extra.some((e) => e.name === k.name)), ...extra];
  // Fields that name the run kinds (a policy's applies_to, an event rule's actions, an outbound
  // webhook's events) and the types of /unified_jobs/ are made from them.
  const kindsOfFields = new RunKinds(kinds, new ResourceSet(declared));
  const vocabulary = {
    [POLICY_RESOURCE_TYPES]: kindsOfFields.policyResourceTypes(),
    [EVENT_RULE_RUN_KINDS]: kindsOfFields,
    [UNIFIED_JOB_TYPES]: kindsOfFields.unifiedJobTypes(),
    [WEBHOOK_EVENT_TYPES]: kindsOfFields.webhookEventTypes(),
  };
  const resources = new ResourceSet(declared.map((resource) => composeResource(resource, vocabulary)));
  const runKinds = new RunKinds(kinds, resources, RUN_FOLLOWERS);
  const tracing = new Tracing(base.settings, base.version);
  const launches = createLaunchService(base.db, options.gates ?? GATES, runKinds, tracing);
  const ssoMethods = [...SSO_METHODS, ...(options.extraSsoMethods ?? [])];
  const log = options.log ?? createRootLog({ level: process.env.SVC_LOG_LEVEL, node: base.env.nodeName });
  // Failures to reach the aggregator go to the local log only, never back into the queue.
  const logShipper = createLogShipper(base.settings, base.env.nodeName, (message) => log.warn({ logger: 'awx.main.utils.handlers' }, message));
  return {
    ...base, resources, runKinds, launches, scheduleKinds: new ScheduleKinds(scheduleKinds(runKinds)), ssoMethods,
    caches: serviceCaches(), logShipper, logger: options.logger ?? structuredServiceLogger(log, logShipper), tracing,
  };
}
