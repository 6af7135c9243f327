// oac-node's manual page on the host (issue #39): `man oac-node` where the operator works, as
// systemd's and Docker's are. The text is generated from the command table (scripts/man-page.ts
// writes ./man-page-text.ts); the installer writes it as a marked file beside the command on
// PATH and the uninstall removes it with the program, keeping a page someone else put there.
import { VERSION } from '../version.ts';
import { MAN_PAGE_TEMPLATE } from './man-page-text.ts';

export const MAN_DIR = '/usr/local/share/man/man1';
export const MAN_PAGE_PATH = `${MAN_DIR}/oac-node.1`;
/** The page's own line that marks it as the installer's (a roff comment). */
export const MAN_PAGE_MARK = ".\\\" oac-node's manual page, written by oac-node's installer.";
/** Where the generated text names the program's version, filled in when it is written. */
export const MAN_VERSION = '@VERSION@';

export function renderManPage(): string {
  return MAN_PAGE_TEMPLATE.replaceAll(MAN_VERSION, VERSION.replaceAll('-', '\\-'));
}
