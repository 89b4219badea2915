/** POST /schedules/preview/ and GET /schedules/zoneinfo/ (AWX's SchedulePreview and ScheduleZoneInfo). */
import { Type } from 'typebox';
import type { RouteModule } from '../../api/extra-routes.ts';
import { viewOptions } from '../../api/options.ts';
import { AUTHENTICATED } from '../../api/permissions.ts';
import { routeMethods } from '../../api/resource-routes.ts';
import { validBody } from '../../api/route-schemas.ts';
import { NOT_BLANK } from '../../api/schema-errors.ts';
import { previewRrule } from './schedule-hooks.ts';
import { knownZones } from './zone-time.ts';

/** POST preview/: the rule (AWX's SchedulePreviewSerializer), whose text parseRrule checks. */
const PreviewBody = Type.Object({ rrule: Type.String({ pattern: NOT_BLANK, description: 'DTSTART and RRULE lines, as a schedule stores them.' }) }, { additionalProperties: true });

export const scheduleRoutes: RouteModule = (app) => {
  routeMethods(app, '/api/v2/schedules/preview/', AUTHENTICATED, {
    // What the preview takes (the browsable form of AWX); the answer comes from POST.
    GET: async () => ({ rrule: '' }),
    POST: async (request) => {
      return previewRrule(validBody(request, PreviewBody).rrule);
    },
    OPTIONS: async () => viewOptions('Schedule Recurrence Rule Preview', 'POST {rrule}: the next 10 times the rule names, local and UTC.'),
  }, {
    GET: { summary: 'What an rrule preview takes' },
    POST: { summary: 'Preview the next occurrences of an rrule', body: PreviewBody, checkBody: true },
  });
  routeMethods(app, '/api/v2/schedules/zoneinfo/', AUTHENTICATED, {
    GET: async () => ({ zones: knownZones(), links: {} }),
    OPTIONS: async () => viewOptions('Schedule Zone Info', 'GET: the time zone names an rrule may use.'),
  }, {
    GET: { summary: 'Time zones an rrule may name' },
  });
};
