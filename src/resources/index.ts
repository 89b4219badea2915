// Every resource module, imported once so its declaration is registered. Add new resources here.
export { organizations } from './organizations/organization.resource.ts';
export { users } from './users/user.resource.ts';
export { teams } from './teams/team.resource.ts';
export { roles } from './roles/role.resource.ts';
export { applications } from './applications/application.resource.ts';
export { tokens } from './tokens/token.resource.ts';
export { activityStream } from './activity-stream/activity-stream.resource.ts';
export { auditEvents } from './audit-events/audit-event.resource.ts';
