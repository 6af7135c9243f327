// A command's run as src/cli/interrupt.ts guards it, writing a line to stdout every 20 ms until
// the run is stopped: test/unit/interrupt-output.test.ts closes the stdout pipe under it.
import { interruptOnSignals } from '../../src/cli/interrupt.ts';
import { OacError } from '../../src/errors.ts';

const interruption = interruptOnSignals();
const writing = setInterval(() => process.stdout.write('a step\n'), 20);
interruption.signal.addEventListener('abort', () => {
  clearInterval(writing);
  interruption.release();
  const reason: unknown = interruption.signal.reason;
  // The abort's reason is the run's `interrupted` error, which names the signal.
  const code = reason instanceof OacError ? reason.code : String(reason);
  process.stderr.write(`stopped: ${code}: ${reason instanceof Error ? reason.message : ''}\n`);
});
