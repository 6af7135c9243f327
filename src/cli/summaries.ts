// What `--help` says of each command, in one table that loads nothing: the command list is
// printed without loading any command's code (issue #13), and each command module takes its
// `describe` from here, so the two never disagree.
export const COMMAND_SUMMARIES = {
  install: 'Turn this host into a node of a Core (the enrollment token is read from stdin)',
  uninstall: 'Remove the node from this host, after Core confirms it was removed',
  register: 'Register this host manually with an enrollment token file',
  run: 'Run the node: connect to Core and report readiness (exit 78 = Core removed the node)',
  status: "Compare this node's records with the host and with Core",
  command: 'Print the one-line install (or uninstall) command for this Core',
  bundle: "Write one file with a release's installer and node files, for hosts without the console",
  apply: 'Apply a plan saved by install --plan-out, only if the host and Core are as it found them',
  'show-plan': 'Print a plan saved by install --plan-out, as the dry run showed it',
  version: 'Print what this program is: version, build, Node.js, formats (--json for scripts)',
  diagnose: 'Write a support bundle (.tar.gz) that holds no secret, and say what looks wrong',
  completion: 'Print a shell completion script (bash, zsh or fish): source <(oac-node completion)',
  _prepare: false,
} as const satisfies Record<string, string | false>;
