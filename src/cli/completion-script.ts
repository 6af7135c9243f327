// Shell completion (issue #25 item 4): a static script for bash or zsh, made from the commands'
// own option lists (src/cli/commands/completion.ts), so the shell completes without starting
// this 80 MB executable on every Tab. Commands and options are this program's own names
// (checked below), never text from outside.

export interface CompletionSpec {
  /** The public commands, in --help's order. */
  commands: string[];
  /** Each command's long options, with their `--`. */
  options: Record<string, string[]>;
}

const WORD = /^-{0,2}[a-z][a-z0-9-]*$/;

/** The options every command takes, also before the command's name (src/cli/main.ts). */
const GLOBAL = ['--help', '--version', '--no-color'] as const;

function words(list: readonly string[]): string {
  for (const w of list) if (!WORD.test(w)) throw new Error(`not a completion word: ${w}`);
  return list.join(' ');
}

export function bashCompletion(spec: CompletionSpec): string {
  const cases = spec.commands.map(
    (c) => `    ${c}) COMPREPLY=($(compgen -W '${words(spec.options[c] ?? [])}' -- "$cur")) ;;`,
  );
  return `# oac-node completion for bash: source <(oac-node completion bash)
_oac_node() {
  local cur=\${COMP_WORDS[COMP_CWORD]} command= i
  # The command is the first word that is no option (global options may come before it).
  for ((i = 1; i < COMP_CWORD; i++)); do
    case \${COMP_WORDS[i]} in -*) ;; *) command=\${COMP_WORDS[i]}; break ;; esac
  done
  if [ -z "$command" ]; then
    COMPREPLY=($(compgen -W '${words(spec.commands)} ${words(GLOBAL)}' -- "$cur"))
    return
  fi
  case $command in
${cases.join('\n')}
  esac
}
complete -o default -F _oac_node oac-node
`;
}

export function zshCompletion(spec: CompletionSpec): string {
  const cases = spec.commands.map((c) => `    ${c}) compadd -- ${words(spec.options[c] ?? [])} ;;`);
  return `#compdef oac-node
# oac-node completion for zsh: source <(oac-node completion zsh), after compinit
_oac_node() {
  local command= i
  # The command is the first word that is no option (global options may come before it).
  for (( i = 2; i < CURRENT; i++ )); do
    [[ \${words[i]} == -* ]] || { command=\${words[i]}; break; }
  done
  if [[ -z $command ]]; then
    compadd -- ${words(spec.commands)} ${words(GLOBAL)}
    return
  fi
  case $command in
${cases.join('\n')}
  esac
  _files
}
compdef _oac_node oac-node
`;
}
