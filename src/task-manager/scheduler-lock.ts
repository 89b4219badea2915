/** The advisory lock a task manager pass holds (one pass at a time across nodes); taken also by what must not overlap a pass. */
export const SCHEDULER_LOCK = 7_341_105;
