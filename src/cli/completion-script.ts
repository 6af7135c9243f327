// Shell completion (issue #25 item 4): a static script for bash or zsh, made from the commands'
// own option lists (src/cli/commands/completion.ts), so the shell completes without starting
// this 80 MB executable on every Tab. Commands and options are this program's own names
// (checked below), never text from outside.

export interface CompletionSpec {
  /** The public commands, in --help's order. */
  commands: string[];
  /** Each command's long options, with their `--`. */
  options: Record<string, string[]>;
  /** The commands whose argument is a file (`apply FILE`, `show-plan FILE`). */
  fileArguments: string[];
  /** The shells `completion` writes a script for. */
  shells: string[];
}

const WORD = /^-{0,2}[a-z][a-z0-9-]*$/;

/** The options every command takes, also before the command's name (src/cli/main.ts). */
const GLOBAL = ['--help', '--version', '--no-color'] as const;
/** The options whose value is an installation ID: completed from the IDs this host records
 *  (names of /etc/oac-node/<id>.json, readable by root alone, as the commands themselves). */
const ID_OPTION = '--installation-id';
const RECORDS = '/etc/oac-node';

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
  local cur=\${COMP_WORDS[COMP_CWORD]} prev=\${COMP_WORDS[COMP_CWORD-1]} command= i
  # The command is the first word that is no option (global options may come before it).
  for ((i = 1; i < COMP_CWORD; i++)); do
    case \${COMP_WORDS[i]} in -*) ;; *) command=\${COMP_WORDS[i]}; break ;; esac
  done
  if [ -z "$command" ]; then
    COMPREPLY=($(compgen -W '${words(spec.commands)} ${words(GLOBAL)}' -- "$cur"))
    return
  fi
  if [ "$prev" = ${ID_OPTION} ]; then
    # Names matched here, never handed to compgen -W (which would expand $(…) in a name).
    local f
    for f in ${RECORDS}/*.json; do
      f=\${f##*/}; f=\${f%.json}
      [[ $f =~ ^[A-Za-z0-9][A-Za-z0-9._-]*$ && $f == "$cur"* ]] && COMPREPLY+=("$f")
    done
    return
  fi
  # A word that is no option: the command's argument (a file, a shell) or an option's value,
  # left to bash's own file names (complete -o default).
  case $cur in -*) ;; *)
    [ "$command" = completion ] && COMPREPLY=($(compgen -W '${words(spec.shells)}' -- "$cur"))
    return ;;
  esac
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
  if [[ \${words[CURRENT-1]} == ${ID_OPTION} ]]; then
    local -a ids
    ids=(${RECORDS}/*.json(N:t:r))
    compadd -- \${ids:#*[^A-Za-z0-9._-]*}
    return
  fi
  if [[ \${words[CURRENT]} == -* ]]; then
    case $command in
${cases.join('\n')}
    esac
    return
  fi
  [[ $command == completion ]] && { compadd -- ${words(spec.shells)}; return; }
  _files
}
compdef _oac_node oac-node
`;
}

/** fish: every command, then its own options once a command is given; files where a command
 *  takes one; installation IDs after --installation-id. */
export function fishCompletion(spec: CompletionSpec): string {
  const seen = (c: string) => `__fish_seen_subcommand_from ${c}`;
  const options = spec.commands.flatMap((c) =>
    (spec.options[c] ?? []).map(
      (o) => `complete -c oac-node -n '${seen(c)}' -l ${words([o]).slice(2)}`,
    ),
  );
  return `# oac-node completion for fish: oac-node completion fish | source
complete -c oac-node -f
complete -c oac-node -n __fish_use_subcommand -a '${words(spec.commands)}'
complete -c oac-node -l help -s h
complete -c oac-node -l version -s V
complete -c oac-node -l no-color
${options.join('\n')}
complete -c oac-node -n '${seen(words(spec.fileArguments))}' -F
complete -c oac-node -n '${seen('completion')}' -a '${words(spec.shells)}'
complete -c oac-node -n '__fish_seen_argument -l ${ID_OPTION.slice(2)}' -x -a '(for f in ${RECORDS}/*.json; basename $f .json; end 2>/dev/null | string match -r "^[A-Za-z0-9][A-Za-z0-9._-]*\\$")'
`;
}
