// `oac-node completion [bash|zsh]`: prints the completion script for the shell (by default the
// one $SHELL names, else bash). Each command's options are read from its own yargs builder, so
// the script lists exactly what the command takes; hidden options stay hidden.
import type { Argv, CommandModule } from 'yargs';
import { COMMAND_TABLE } from '../command-table.ts';
import { COMMAND_SUMMARIES } from '../summaries.ts';
import {
  bashCompletion,
  fishCompletion,
  zshCompletion,
  type CompletionSpec,
} from '../completion-script.ts';
import { comment } from '../examples.ts';

const SHELLS = ['bash', 'zsh', 'fish'] as const;
type Shell = (typeof SHELLS)[number];

interface CompletionArgs {
  shell?: Shell;
}

export const completionCommand: CommandModule<object, CompletionArgs> = {
  command: 'completion [shell]',
  describe: COMMAND_SUMMARIES.completion,
  builder: (yargs: Argv) =>
    yargs
      .positional('shell', {
        choices: SHELLS,
        describe: 'The shell (default: the one $SHELL names, else bash)',
      })
      .example(comment('Complete oac-node in this shell'), '')
      .example('source <($0 completion)', '')
      .example(comment('For every bash on this host (bash-completion loads it when needed)'), '')
      .example('$0 completion bash > /usr/share/bash-completion/completions/oac-node', '')
      .example(comment('fish'), '')
      .example('$0 completion fish > /etc/fish/completions/oac-node.fish', ''),
  handler: async (argv) => {
    const named = /(zsh|fish)$/.exec(process.env.SHELL ?? '')?.[1] as Shell | undefined;
    const shell = argv.shell ?? named ?? 'bash';
    const spec = await completionSpec();
    const script = { bash: bashCompletion, zsh: zshCompletion, fish: fishCompletion }[shell];
    process.stdout.write(script(spec));
  },
};

/** What yargs' parser knows of its options (not in yargs' own types). */
interface Declared {
  getOptions(): { key: Record<string, unknown>; hiddenOptions: string[] };
}

/** The public commands and each one's long options, as its builder declares them. */
export async function completionSpec(): Promise<CompletionSpec> {
  const { default: yargs } = await import('yargs');
  const commands = COMMAND_TABLE.map((c) => c.name).filter((n) => !n.startsWith('_'));
  const options: Record<string, string[]> = {};
  const fileArguments: string[] = [];
  for (const { name, load } of COMMAND_TABLE) {
    if (name.startsWith('_')) continue;
    const module = (await load()) as CommandModule;
    const builder = module.builder;
    const parser =
      typeof builder === 'function' ? builder(yargs([])) : yargs([]).options(builder ?? {});
    const declared = (parser as unknown as Declared).getOptions();
    // Positionals (`show-plan <file>`) are words, not options.
    const positional = [...String(module.command ?? '').matchAll(/[<[]([a-z-]+)[\]>]/g)];
    const hidden = new Set([...declared.hiddenOptions, ...positional.map((m) => m[1])]);
    if (positional.some((m) => m[1] === 'file')) fileArguments.push(name);
    options[name] = Object.keys(declared.key)
      .filter((k) => k.length > 1 && !hidden.has(k) && k !== 'version')
      .map((k) => `--${k}`);
  }
  return { commands, options, fileArguments, shells: [...SHELLS] };
}
