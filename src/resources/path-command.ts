// `oac-node` on PATH (issue #25 item 2): the hints and the guide say `sudo oac-node status`,
// as k3s, tailscale and kubeadm put their command on PATH. Each installation's program lives in
// its own root-only directory, and a host may hold several installations, so the command is one
// small sh script shared by all of them (the same bytes whoever wrote it): it runs the newest
// installation program on the host, which reads any installation's records. Only root can
// write /usr/local/sbin and /usr/local/lib/oac-node, so the glob names only root's programs.
import { PROGRAM_ROOT } from '../layout.ts';

/** The line that marks the file as the installer's: a file at PATH_COMMAND without it is
 *  someone else's, refused by the install and never removed by the uninstall. */
export const PATH_COMMAND_MARK = "# oac-node on PATH, written by oac-node's installer.";

export function renderPathCommand(): string {
  return `#!/bin/sh
${PATH_COMMAND_MARK}
# It runs the newest program of the installations on this host (${PROGRAM_ROOT}/<id>/oac-node);
# The uninstall removes it with the program.
newest=
for program in ${PROGRAM_ROOT}/*/oac-node; do
  [ -f "$program" ] && [ -x "$program" ] || continue
  if [ -z "$newest" ] || [ "$program" -nt "$newest" ]; then newest=$program; fi
done
if [ -z "$newest" ]; then
  echo "oac-node: no installation's program is left on this host (${PROGRAM_ROOT}/<id>/oac-node)" >&2
  exit 127
fi
exec "$newest" "$@"
`;
}
