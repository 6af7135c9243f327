// A command's run as src/cli/interrupt.ts guards it, writing a line to stdout every 20 ms until
// the run is stopped: test/unit/interrupt-output.test.ts closes the stdout pipe under it.
import { interruptOnSignals } from '../../src/cli/interrupt.ts';

const interruption = interruptOnSignals();
const writing = setInterval(() => process.stdout.write('a step\n'), 20);
interruption.signal.addEventListener('abort', () => {
  clearInterval(writing);
  interruption.release();
  process.stderr.write(`stopped: ${String(interruption.signal.reason)}\n`);
});
