/** What an instance's routes ask of its access policy (health_check/): AWX's IsSystemAdminOrAuditor. */
import { isSuperuser, seesEverything, type ObjectAction } from '../../api/access.ts';

export const instanceActions: Record<string, ObjectAction> = {
  read_health: seesEverything,
  health_check: isSuperuser,
};
