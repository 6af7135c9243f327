// Moved to the harness (issue #28 item 5): test/e2e/harness/enroll.ts. Kept for scripts/demo.ts
// and bench/host.ts.
export { fromLine, installByLine, type InstalledByLine } from '../harness/enroll.ts';
