import { registerRunner } from '../../runs/run-kind.ts';
import { runAdHocCommand } from './run-ad-hoc.ts';

registerRunner('ad_hoc_command', runAdHocCommand);
