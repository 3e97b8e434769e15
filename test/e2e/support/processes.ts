// The apps of an end-to-end test run as processes (scripts/lib/processes.ts, shared with the
// benchmark); their logs are printed when a test fails (see stack.ts).
export type { Proc } from '../../../scripts/lib/processes';
export { startProcess, stopProcess, freePort, tail, isRunning, waitHealthy as waitForHealthy } from '../../../scripts/lib/processes';
