import { boolean } from '../../../api/fields.ts';
import { category, setting } from '../types.ts';

const flag = (value: boolean, label: string, helpText: string, meta?: Record<string, unknown>) => setting<boolean>(boolean({ default: value, label, helpText }), meta);

/** AWX's debugging switches. */
export const debug = category({
  slug: 'debug',
  name: 'Debug',
  description: 'Switches for debugging the service.',
  settings: {
    AWX_CLEANUP_PATHS: flag(true, 'Enable or Disable tmp dir cleanup', 'Enable or Disable TMP Dir cleanup'),
    AWX_REQUEST_PROFILE: flag(false, 'Debug Web Requests', 'Debug web request python timing'),
    // Drover has no receptor mesh: the console hides it.
    RECEPTOR_RELEASE_WORK: flag(true, 'Release Receptor Work', 'Release receptor work', { hidden: true }),
  },
});
