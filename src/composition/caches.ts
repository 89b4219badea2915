import type { ServiceCaches } from '../api/context.ts';
import { VerifiedPasswords } from '../auth/basic.ts';
import { OidcDiscovery } from '../auth/sso/oidc.ts';
import { ReceivingRules } from '../resources/event-rules/receiving-rules.ts';
import { ServiceMetrics } from '../telemetry/metrics.ts';

/** The in-memory state of one service, new for each (two services in one process share none of it). */
export const serviceCaches = (): ServiceCaches => ({
  passwords: new VerifiedPasswords(),
  oidcDiscovery: new OidcDiscovery(),
  receivingRules: new ReceivingRules(),
  metrics: new ServiceMetrics(),
});
