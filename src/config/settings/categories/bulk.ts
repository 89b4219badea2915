import { integer } from '../../../api/fields.ts';
import { category, setting } from '../types.ts';

const limit = (value: number, label: string) => setting<number>(integer({ default: value, label, helpText: label }), { hidden: true });

/** AWX's limits of its bulk endpoints (/api/v2/bulk/). */
export const bulk = category({
  slug: 'bulk',
  name: 'Bulk Actions',
  description: 'Limits of the bulk endpoints.',
  settings: {
    BULK_JOB_MAX_LAUNCH: limit(100, 'Max jobs to allow bulk jobs to launch'),
    BULK_HOST_MAX_CREATE: limit(100, 'Max number of hosts to allow to be created in a single bulk action'),
    BULK_HOST_MAX_DELETE: limit(250, 'Max number of hosts to allow to be deleted in a single bulk action'),
  },
});
