// What an install wants in root's view (its plan's resources, every property filled in), for
// tests that build the desired value without an install: the product builds it through
// installationDesired and rootView (src/installation/desired.ts) inside its plan.
import {
  installationDesired,
  rootView,
  type DesiredInputs,
} from '../../src/installation/desired.ts';
import type { RootResource } from '../../src/installation/root-context.ts';

export function desired(inputs: DesiredInputs): RootResource[] {
  return rootView(installationDesired(inputs));
}
