/** Every resource declaration, in the order the API root and route registration follow. Add new resources here. */
import type { Resource } from '../api/resource.ts';
import { activityStream } from '../resources/activity-stream/activity-stream.resource.ts';
import { applications } from '../resources/applications/application.resource.ts';
import { auditEvents } from '../resources/audit-events/audit-event.resource.ts';
import { credentialTypes } from '../resources/credential-types/credential-type.resource.ts';
import { credentials } from '../resources/credentials/credential.resource.ts';
import { credentialInputSources } from '../resources/credential-input-sources/credential-input-source.resource.ts';
import { executionEnvironments } from '../resources/execution-environments/execution-environment.resource.ts';
import { groups } from '../resources/groups/group.resource.ts';
import { hosts } from '../resources/hosts/host.resource.ts';
import { instanceGroups } from '../resources/instance-groups/instance-group.resource.ts';
import { instances } from '../resources/instances/instance.resource.ts';
import { inventories } from '../resources/inventories/inventory.resource.ts';
import { inventorySources } from '../resources/inventory-sources/inventory-source.resource.ts';
import { jobTemplates } from '../resources/job-templates/job-template.resource.ts';
import { labels } from '../resources/labels/label.resource.ts';
import { notifications } from '../resources/notification-templates/notification.resource.ts';
import { notificationTemplates } from '../resources/notification-templates/notification-template.resource.ts';
import { organizations } from '../resources/organizations/organization.resource.ts';
import { projects } from '../resources/projects/project.resource.ts';
import { roles } from '../resources/roles/role.resource.ts';
import { schedules } from '../resources/schedules/schedule.resource.ts';
import { systemJobTemplates } from '../resources/system-job-templates/system-job-template.resource.ts';
import { systemJobs } from '../run-kinds/system-job/system-job.resource.ts';
import { teams } from '../resources/teams/team.resource.ts';
import { tokens } from '../resources/tokens/token.resource.ts';
import { unifiedJobEvents } from '../resources/unified-job-events/unified-job-event.resource.ts';
import { unifiedJobs, unifiedJobTemplates } from '../resources/unified-jobs/unified-job.resource.ts';
import { users } from '../resources/users/user.resource.ts';
import { workflowApprovalTemplates } from '../resources/workflow-job-templates/approval-template.resource.ts';
import { workflowJobTemplates } from '../resources/workflow-job-templates/workflow-job-template.resource.ts';
import { workflowNodes } from '../resources/workflow-job-templates/workflow-node.resource.ts';
import { adHocCommandEvents, adHocCommands } from '../run-kinds/ad-hoc-command/ad-hoc-command.resource.ts';
import { inventoryUpdates } from '../run-kinds/inventory-update/inventory-update.resource.ts';
import { jobHostSummaries } from '../run-kinds/job/job-host-summary.resource.ts';
import { jobEvents, jobs } from '../run-kinds/job/job.resource.ts';
import { projectUpdates } from '../run-kinds/project-update/project-update.resource.ts';
import { workflowApprovals } from '../run-kinds/workflow-approval/workflow-approval.resource.ts';
import { workflowJobNodes } from '../run-kinds/workflow-job/workflow-job-node.resource.ts';
import { workflowJobs } from '../run-kinds/workflow-job/workflow-job.resource.ts';

import { factSnapshots } from '../resources/drift/fact-snapshot.resource.ts';
import { driftDetections } from '../resources/drift/drift-detection.resource.ts';
import { driftAlertRules } from '../resources/drift/drift-alert-rule.resource.ts';
import { driftAlerts } from '../resources/drift/drift-alert.resource.ts';
import { eventRules } from '../resources/event-rules/event-rule.resource.ts';
import { eventLogs } from '../resources/event-rules/event-log.resource.ts';
import { outboundWebhooks } from '../resources/outbound-webhooks/outbound-webhook.resource.ts';
import { outboundWebhookDeliveries } from '../resources/outbound-webhooks/delivery.resource.ts';
import { policies } from '../resources/policies/policy.resource.ts';
import { policyDecisions } from '../resources/policies/policy-decision.resource.ts';
import { scanners } from '../resources/scanners/scanner.resource.ts';
import { scanResults } from '../resources/scanners/scan-result.resource.ts';
import { webauthnCredentials } from '../resources/webauthn-credentials/webauthn-credential.resource.ts';
import { serviceCatalogItems } from '../resources/service-catalog/catalog-item.resource.ts';
import { serviceRequests } from '../resources/service-catalog/service-request.resource.ts';
import { hostMetricSummaryMonthly, hostMetrics } from '../resources/host-metrics/host-metric.resource.ts';
import { roleDefinitions } from '../resources/role-definitions/role-definition.resource.ts';
import { roleTeamAssignments, roleUserAssignments } from '../resources/role-definitions/assignments.ts';
import { tenants } from '../resources/tenants/tenant.resource.ts';
import { tenantQuotaEvents } from '../resources/tenants/quota-event.resource.ts';

export const RESOURCES: readonly Resource[] = [
  organizations, users, teams, roles, roleDefinitions, roleUserAssignments, roleTeamAssignments, applications, tokens, activityStream, auditEvents, credentialTypes, credentials, credentialInputSources,
  inventories, hosts, hostMetrics, hostMetricSummaryMonthly, groups, executionEnvironments, projects, projectUpdates, unifiedJobEvents, unifiedJobs, unifiedJobTemplates,
  inventorySources, inventoryUpdates, instances, instanceGroups, jobs, jobEvents, jobHostSummaries, adHocCommands, adHocCommandEvents, labels, jobTemplates,
  schedules, systemJobTemplates, systemJobs,
  workflowJobTemplates, workflowNodes, workflowApprovalTemplates, workflowJobs, workflowJobNodes, workflowApprovals,
  notificationTemplates, notifications,
  factSnapshots, driftDetections, driftAlertRules, driftAlerts,
  eventRules, eventLogs,
  outboundWebhooks, outboundWebhookDeliveries,
  policies, policyDecisions, scanners, scanResults,
  webauthnCredentials,
  serviceCatalogItems, serviceRequests,
  tenants, tenantQuotaEvents,
];
