// UPG-02's test releases: a build can be made deliberately broken (`npm run build -- --fault
// exit-at-start|never-ready|prepare-fails`), so the tests can upgrade to a program that exits
// as it starts, one that connects but never reports ready, or one whose node half fails, and
// watch the installer roll back. The switch
// is a constant defined into the executable at build time, never read from the environment or
// a file at run time. Each use tests the constant itself (`typeof OAC_BUILT_FAULT`), so that in
// a normal build, which defines it as undefined, esbuild folds the test to false and drops the
// code behind it (test/host/executable.test.ts checks that it is gone).
declare global {
  const OAC_BUILT_FAULT: string | undefined;
}

export type BuiltFault = 'exit-at-start' | 'never-ready' | 'prepare-fails';
