import { registerRunner } from '../../runs/run-kind.ts';
import { runPlaybookJob } from './run-job.ts';
import { launchJobTemplate } from './launch.ts';
import { setLaunchAction } from '../../resources/job-templates/launch-action.ts';
import './relaunch-routes.ts';
import './callback-routes.ts';
import './job-secret-rotation.ts';

registerRunner('job', runPlaybookJob, { templateTable: 'job_templates', templateIsSource: false, defaultTimeoutSetting: 'DEFAULT_JOB_TIMEOUT' });

setLaunchAction((request, reply) => launchJobTemplate(request.server.services, request, reply));
