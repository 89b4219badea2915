import { registerRunner } from '../dispatcher/runners.ts';
import { runAdHocCommand } from './run-ad-hoc.ts';

registerRunner('ad_hoc_command', runAdHocCommand);
