// Whether this machine can run a microsandbox node at all: the e2e hosts make their own
// /dev/kvm node (char 10:232), which opens only where this machine's kernel offers KVM. On a
// machine without it a node can only report host_unsupported, so tests of a ready microsandbox
// node are skipped, saying why (node:test prints the reason); the refusals are still tested.
import { closeSync, openSync } from 'node:fs';

function kvmProblem(): string | false {
  try {
    closeSync(openSync('/dev/kvm', 'r+'));
    return false;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    return `this machine cannot open /dev/kvm (${code}): no microsandbox node can become ready here`;
  }
}

/** false where KVM works; otherwise the reason to skip (for `test(name, { skip }, fn)`). */
export const noKvm: string | false = kvmProblem();
