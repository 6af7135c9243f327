// The commands, each with the loader of its code (src/cli/main.ts, and completion).
// Each command's code is loaded only when it is the one to run (issue #13: `--help` and
// `--version` pay for no installer, no node program, no HTTP client). `--help` lists the
// commands from this table; a command's own options come with its module. A command module
// (src/cli/commands/<verb>.ts) is named after its verb, as the one module that does the work
// is (installer/install.ts, uninstaller/uninstall.ts, src/agent/run.ts …): it parses, calls that,
// and renders (test/unit/file-names.test.ts).
type Loader = () => Promise<object>;
export const COMMAND_TABLE: ReadonlyArray<{ name: string; load: Loader }> = [
  { name: 'install', load: () => import('./commands/install.ts').then((m) => m.installCommand) },
  {
    name: 'uninstall',
    load: () => import('./commands/uninstall.ts').then((m) => m.uninstallCommand),
  },
  { name: 'register', load: () => import('./commands/register.ts').then((m) => m.registerCommand) },
  { name: 'run', load: () => import('./commands/run.ts').then((m) => m.runCommand) },
  { name: 'status', load: () => import('./commands/status.ts').then((m) => m.statusCommand) },
  { name: 'command', load: () => import('./commands/command.ts').then((m) => m.commandCommand) },
  { name: 'bundle', load: () => import('./commands/bundle.ts').then((m) => m.bundleCommand) },
  { name: 'apply', load: () => import('./commands/apply.ts').then((m) => m.applyCommand) },
  {
    name: 'show-plan',
    load: () => import('./commands/show-plan.ts').then((m) => m.showPlanCommand),
  },
  {
    name: 'diagnose',
    load: () => import('./commands/diagnose.ts').then((m) => m.diagnoseCommand),
  },
  { name: 'version', load: () => import('./commands/version.ts').then((m) => m.versionCommand) },
  {
    name: 'completion',
    load: () => import('./commands/completion.ts').then((m) => m.completionCommand),
  },
  { name: '_prepare', load: () => import('./commands/prepare.ts').then((m) => m.prepareCommand) },
];
