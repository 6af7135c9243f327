// oac-node's manual page on the host (issue #39): `man oac-node` where the operator works, as
// systemd's and Docker's are. The text is generated from the command table (scripts/man-page.ts
// writes ./man-page-text.ts); the installer writes it as a marked file beside the command on
// PATH and the uninstall removes it with the program, keeping a page someone else put there.
import { MAN_PAGE_TEMPLATE } from './man-page-text.ts';

export const MAN_DIR = '/usr/local/share/man/man1';
export const MAN_PAGE_PATH = `${MAN_DIR}/oac-node.1`;
/** The page's own line that marks it as the installer's (a roff comment). */
export const MAN_PAGE_MARK = ".\\\" oac-node's manual page, written by oac-node's installer.";
/** The page as the installer writes it: the same for every version whose commands are the
 *  same (an upgrade rolled back leaves it as it was). */
export function renderManPage(): string {
  return MAN_PAGE_TEMPLATE;
}
