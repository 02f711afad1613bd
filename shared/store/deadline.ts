import { LIMITS } from '../limits';

/** Whether a write of many records (create, update, delete) may start another: not within the reserve before the deadline. */
export const beforeCutoff = (deadline: number) => (): boolean => Date.now() < deadline - LIMITS.bulkStopBeforeDeadlineMs;
