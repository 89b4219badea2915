import { registerRunner } from '../dispatcher/runners.ts';
import { runPlaybookJob } from './run-job.ts';

registerRunner('job', runPlaybookJob, { templateTable: 'job_templates', defaultTimeoutSetting: 'DEFAULT_JOB_TIMEOUT' });
