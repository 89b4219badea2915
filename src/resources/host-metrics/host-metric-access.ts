import { isSuperuser, seesEverything, type AccessPolicy } from '../../api/access.ts';
import { forbidden } from '../../api/errors.ts';

const never = () => false;

/**
 * AWX's IsSystemAdminOrAuditor: system administrators and auditors read, only system administrators
 * delete; anyone else is refused outright (403), never shown an empty list.
 */
export const hostMetricAccess: AccessPolicy = {
  visible: (ctx) => {
    if (!seesEverything(ctx)) throw forbidden();
    return null;
  },
  canCreate: never,
  canChange: never,
  canDelete: (ctx) => isSuperuser(ctx),
  canAttach: never,
};
