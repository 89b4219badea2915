/**
 * Policy endpoints beyond CRUD (docs/policy.md#enable-disable-test): enable/disable (enabling queues the policy's
 * upload again) and test/, which evaluates the policy's package over a given input and says what the
 * verdict would be, without launching anything or recording a decision.
 */
import { Type } from 'typebox';
import { isSuperuser } from '../../api/access.ts';
import { OPTIONS_RESPONSE } from '../../api/action-schemas.ts';
import { ApiError, ValidationError } from '../../api/errors.ts';
import type { RouteModule } from '../../api/extra-routes.ts';
import { actionOptions } from '../../api/options.ts';
import { objectPermission } from '../../api/permissions.ts';
import { routeMethods } from '../../api/resource-routes.ts';
import { validBody } from '../../api/route-schemas.ts';
import { enableDisableRoutes } from '../../api/toggle-routes.ts';
import { EngineError, engineOf, evaluate } from '../../policy/engine.ts';
import { queuePolicyUpload } from '../../policy/engine-outbox.ts';
import { parseVerdict } from '../../policy/verdict.ts';
import { assertPolicyAllowed } from './policy-checks.ts';

const TestBody = Type.Object({
  input: Type.Record(Type.String(), Type.Unknown(), {
    errorMessage: 'Expected a JSON object: the context document to evaluate.',
    description: 'The context document to evaluate, as a launch would send it.',
  }),
}, { additionalProperties: true });

export const policyRoutes: RouteModule = (app, services) => {
  enableDisableRoutes(app, services, services.resources.get('policy'), async (tx, row) => {
    if (!row.enabled) return;
    // Switching on changes no text: only the namespace is checked, for a policy stored before it was enforced.
    assertPolicyAllowed(row, true);
    await queuePolicyUpload(tx, row as { id: number });
  });

  routeMethods(app, '/api/v2/policies/:id/test/', objectPermission('policy', { POST: 'test' }), {
    GET: async () => ({}),
    POST: async (request) => {
      const body = validBody(request, TestBody);
      // The package evaluated is the policy's own: nothing in the request chooses another.
      const others = Object.keys(body).filter((key) => key !== 'input');
      if (others.length) throw new ValidationError(Object.fromEntries(others.map((key) => [key, ["Not accepted: test/ evaluates the policy's own package_path over input."]])));
      // Only a policy its tester could save as it is: an organization's namespace, and a superuser's built-ins for superusers.
      assertPolicyAllowed(request.object, isSuperuser(request.ctx));
      let raw: unknown;
      try {
        raw = await evaluate(engineOf(services.settings), String(request.object.package_path), body.input);
      } catch (err) {
        if (err instanceof EngineError) throw new ApiError(503, { detail: `Policy engine unavailable: ${err.message}` });
        throw err;
      }
      const { denies, warnings } = parseVerdict(raw, `Denied by policy "${String(request.object.name)}".`);
      return { allowed: denies.length === 0, warnings, denies, raw: raw === undefined ? null : raw };
    },
    OPTIONS: async () => actionOptions('Policy Test', 'POST {input}: evaluates the policy over input and answers {allowed, warnings, denies, raw}; launches nothing.', { GET: {}, POST: {} }),
  }, {
    GET: { summary: 'What testing a policy takes' },
    POST: { summary: 'Evaluate a policy over an input', body: TestBody, checkBody: true },
    OPTIONS: OPTIONS_RESPONSE,
  });
};
