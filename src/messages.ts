// The one table that turns error codes into the guide's one-line messages and hints (after npm's
// Arborist; docs/architecture.md "Errors"). Messages quoted from the guide Core ships
// (docs/operator-guide.md follows it) stay word for word;
// docs/messages.md lists the same table for operators, and test/unit/messages.test.ts keeps them
// equal. `{name}` placeholders are filled by message().

import { OacError, type OacErrorOptions } from './errors.ts';

export interface MessageEntry {
  message: string;
  hint?: string;
}

/** HOST-12: what every refusal of a host names (docs/supported-hosts.md). */
const SUPPORTED =
  'Supported hosts: Debian 11, 12 and 13 on amd64, booted with systemd (docs/supported-hosts.md).';

export const MESSAGES = {
  enrollment_token_refused: {
    message: 'The enrollment command expired or was already used',
    hint: 'Generate a new command in Web (Nodes → Add node) and run it within an hour.',
  },
  node_credential_refused: {
    message: 'Core no longer accepts this node',
    hint: 'The node was removed, or a reset retired it. Uninstall it, then add the host again with a new command.',
  },
  core_url_changed: {
    message: "Core's public URL changed after this command was generated",
    hint: 'Generate a new command in Web and run it.',
  },
  specification_changed: {
    message: 'The sandbox configuration changed while this node was being added',
    hint: 'Run the command again: it reads the new configuration.',
  },
  node_id_taken: {
    message: 'Core already has a node with this ID',
    hint: 'Recover the node with its own credential, or remove it in Web and add the host again.',
  },
  reset_in_progress: {
    message: 'Core is resetting its sandbox deployment',
    hint: 'Add the node after the reset completes (Settings → Sandbox and scheduling).',
  },
  core_not_ready: {
    message: "Core's sandbox deployment is not initialised, or its storage is unavailable",
    hint: 'Save the sandbox configuration in Settings → Sandbox and scheduling, then run the command again.',
  },
  configuration_mismatch: {
    message:
      "Core's configuration is for installation {theirs}, but this command names installation {ours}",
    hint: 'Run the command exactly as Web prints it for this installation (Nodes → Add node); nothing was changed.',
  },
  core_url_required: {
    message: 'Core refused the enrollment: it names no core_url',
    hint: 'This is a bug in oac-node; please report it.',
  },
  core_refused_request: {
    message: 'Core refused the request to {route} as malformed: {detail}',
    hint: 'This is a bug in oac-node or a Core of another version; please report it.',
  },
  core_unreachable: {
    message: 'Cannot reach Core at {origin}: {reason}',
    hint: "Check that this is Core's address as Web shows it (scheme, host name, port), then the host's network and proxy settings, and run the command again.",
  },
  core_certificate_untrusted: {
    message: "Core's certificate at {origin} is not trusted by this host: {reason}",
    hint: 'A Core with a private CA or a self-signed certificate needs its key pinned: --core-pin sha256:… as Web shows it (docs/private-ca.md). Otherwise check the address and the host clock.',
  },
  core_unexpected_response: {
    message: 'Core answered HTTP {status} to {route}',
    hint: 'Check that the address is a Core of a matching version, then run the command again.',
  },
  core_server_error: {
    message: 'Core failed to answer {route} (HTTP {status})',
    hint: "The fault is Core's or a proxy's in front of it: check Core's health and logs, then run the command again: it continues where this run stopped.",
  },
  core_invalid_response: {
    message: "Core's answer to {route} does not match the machine API: {detail}",
    hint: 'Check that the address is a Core of a matching version.',
  },
  insecure_url: {
    message: '{what} must use https (plain http is allowed only for loopback addresses): {url}',
  },
  invalid_url: {
    message: '{what} is not a usable URL: {url} ({problem})',
    hint: 'Write the whole address as Web shows it, such as https://core.example.com or https://core.example.com:8443.',
  },
  token_file_unreadable: {
    message: 'Cannot read the enrollment token file {path}: {reason}',
  },
  token_file_exposed: {
    message: 'The enrollment token file {path} is readable by group or others',
    hint: 'Make it private (chmod 600 FILE), or better, get a new token: this one may have been read.',
  },
  token_file_empty: {
    message: 'The enrollment token file {path} holds no token',
  },
  state_dir_foreign: {
    message:
      'The state directory {dir} holds a node of installation {theirs} at {their_core}, not of installation {ours} at {our_core}',
    hint: 'Use another state directory, or remove that node in Web and uninstall it first.',
  },
  core_url_differs: {
    message: 'The provider file names Core {file_core}, but --core-url is {arg_core}',
    hint: "Copy core_url from Core's configuration read into the provider file.",
  },
  provider_file_stale: {
    message: "The provider file does not match Core's current configuration: {field} differs",
    hint: "Copy provider, installation_id, core_url, generation and specification from Core's configuration read.",
  },
  state_dir_locked: {
    message: 'Another oac-node process is using the state directory {dir}',
    hint: 'A node runs as one process per state directory; stop the other one first (systemctl status oac-node-*).',
  },
  node_not_registered: {
    message: 'The state directory {dir} holds no registered node',
    hint: 'Register it first: oac-node register --config FILE --state-dir DIR --core-url URL --name NAME --enrollment-token-file FILE',
  },
  enrollment_token_required: {
    message: 'This node has not registered yet, so the command needs its enrollment token',
    hint: 'Run the command from Web (Nodes → Add node): it passes the token on standard input.',
  },
  not_root: {
    message: 'Node installation and removal require root',
    hint: 'Run the command from Web as it is: it uses sudo, or run it in a root shell.',
  },
  diagnose_secret_found: {
    message: 'The support bundle is not written: {file} holds {kind} ({encoding})',
    hint: 'Nothing was written. Look at where that file comes from (docs/support.md) and remove the secret there, or send the other files by hand.',
  },
  diagnose_not_root: {
    message: "A support bundle reads the node's root-only records, and needs root",
    hint: 'Run it with sudo: sudo oac-node diagnose',
  },
  run_log_unsafe: {
    message: "The run's events are not kept: {path} is not a directory of root's alone",
    hint: 'Remove it, or make it root:root 0700; the next run that changes the host keeps them there.',
  },
  stdout_unwritable: {
    message: 'Standard output cannot be written ({reason})',
  },
  status_not_root: {
    message: "A node's status is read from its root-only record, and needs root",
    hint: 'Run it with sudo: sudo oac-node status',
  },
  token_in_environment: {
    message: 'The enrollment token must come on standard input, not from the environment',
    hint: "An environment variable set through sudo is recorded in sudo's log: run the command from Web as it is.",
  },
  token_missing: {
    message: 'No enrollment token arrived on standard input',
    hint: 'Run the command from Web as it is: it passes the token on standard input.',
  },
  not_linux_amd64: {
    message: 'This host is not Linux amd64',
    hint: SUPPORTED,
  },
  no_systemd: {
    message: 'This host does not run systemd',
    hint: `The node runs as a systemd service. ${SUPPORTED}`,
  },
  selinux_enforcing: {
    message: 'SELinux is enforcing on this host',
    hint: `The installer never changes SELinux settings. ${SUPPORTED}`,
  },
  file_system_full: {
    message: 'The file system of {path} is full',
    hint: 'Free space there (df -h {dir} shows it), then run the command again: it continues where this run stopped.',
  },
  file_system_read_only: {
    message: '{path} is on a read-only file system',
    hint: 'Make {dir} writable for root again (mount -o remount,rw), then run the command again: it continues where this run stopped.',
  },
  file_system_failed: {
    message: 'The disk failed while {path} was being written (input/output error)',
    hint: "Check the disk (dmesg, the storage's own status), then run the command again: it continues where this run stopped.",
  },
  docker_too_old: {
    message: 'Docker {version} on this host is older than {minimum}, the oldest the node supports',
    hint: `Upgrade Docker Engine to {minimum} or later (the docker.io of Debian 11, 12 and 13 is), then run the command again. ${SUPPORTED}`,
  },
  docker_unavailable: {
    message: 'Docker Engine is not installed, or Docker is not running',
    hint: 'Install Docker Engine, or run sudo systemctl enable --now docker, then run the command again.',
  },
  docker_stopped: {
    message: 'Docker stopped answering during {doing} ({reason})',
    hint: 'Start Docker again (sudo systemctl start docker; sudo journalctl -u docker says why it stopped), then run the command again: it continues where this run stopped.',
  },
  docker_network_refused: {
    message: 'Docker did not create the network {network}: {detail}',
    hint: 'If no address pool is free, remove a network nothing uses (sudo docker network ls, then sudo docker network rm NAME) or give Docker more pools (default-address-pools in /etc/docker/daemon.json), then run the command again.',
  },
  docker_socket_mode: {
    message: '{socket} must be owned by group docker with mode 0660 (it is {owner}, mode {mode})',
    hint: "The installer never changes device or socket permissions: fix Docker's socket settings, then run the command again.",
  },
  docker_limits: {
    message: 'Docker on this host does not enforce CPU and memory limits',
    hint: 'Use cgroup v2 (or a host whose Docker reports CPU and memory limit support), then run the command again.',
  },
  kvm_unavailable: {
    message: 'KVM is unavailable, or /dev/kvm must be group-accessible',
    hint: "Enable virtualization; the distribution's KVM package sets root:kvm 0660.",
  },
  glibc_missing: {
    message: 'microsandbox needs glibc: {loader} is missing',
    hint: "Use a glibc distribution (Debian, Ubuntu, Fedora, RHEL); microsandbox links the system's C library.",
  },
  runtime_home_too_long: {
    message: "microsandbox's runtime directory {path} is longer than 48 bytes",
    hint: 'microsandbox puts Unix sockets there; install without --root or with a shorter one.',
  },
  checkpoint_root_invalid: {
    message: 'The checkpoint store {path} {problem}',
    hint: 'Mount the shared store at that absolute path, owned by UID 65532 (oac-node) with no access for others, then run the command again.',
  },
  checkpoint_root_unwritable: {
    message: 'The checkpoint store {path} is not a directory oac-node can write',
    hint: 'Mount it and give oac-node (UID 65532) access, then run the command again.',
  },
  plan_stale: {
    message: 'The saved plan is stale: {what}; nothing was changed',
    hint: 'Make the plan again (install … --plan-out FILE), review it, then apply the new file.',
  },
  plan_file_invalid: {
    message: 'The plan file {path} {problem}',
    hint: 'Make the plan again with install … --plan-out FILE.',
  },
  plan_while_staging: {
    message:
      "This run only stages release {release} for the running node's rollout to generation {generation}: that is no plan of the installation to save",
    hint: 'Run the same command without --plan-out (it changes nothing but the release the node serves); then make the plan.',
  },
  plan_refused: {
    message: '{count} problems stop this run; nothing was changed',
    hint: 'Fix each of them, then run the command again.',
  },
  checkpoint_root_docker: {
    message: '--checkpoint-root applies only to microsandbox nodes; this Core uses Docker',
    hint: 'Run the command without --checkpoint-root.',
  },
  checkpoint_root_changed: {
    message: 'This node keeps its checkpoint store at {theirs}, but this command asks for {ours}',
    hint: 'A node changes its store only when added again: remove it on Nodes, uninstall it, then add it with the new --checkpoint-root.',
  },
  uid_taken: {
    message: "Another account ({user}) holds UID {uid}, which the node's account needs",
    hint: 'The installer never changes other accounts: free the UID, or use another host.',
  },
  account_foreign: {
    message:
      "An account named {user} already exists (UID {uid}, home {home}, shell {shell}) and is not the node's account",
    hint: 'The installer adopts only UID 65532, home /var/lib/oac-node and a nologin shell; it never changes other accounts.',
  },
  host_too_small: {
    message:
      'This host has {cpus} CPUs and {memory} MiB of memory; each sandbox needs {need_cpus} CPUs and {need_memory} MiB',
    hint: 'Use a larger host, or change the sandbox size.',
  },
  disk_too_small: {
    message: 'This host has {free} MiB free under {path}; the node files need {need} MiB',
    hint: 'Free disk space, then run the command again: nothing was downloaded.',
  },
  docker_disk_too_small: {
    message:
      'This host has {free} MiB free under {path}, where Docker keeps images; the Runtime image needs {need} MiB',
    hint: "Free disk space there (or move Docker's data-root), then run the command again: nothing was downloaded.",
  },
  another_core: {
    message: 'This host already runs a node for another Core',
    hint: 'Remove that node in its Web and uninstall it first (one Core per host).',
  },
  another_installation: {
    message: "This host's node uses {theirs}, but this command uses {ours}",
    hint: 'Remove the node on Nodes, uninstall it on the host, then add it again with Add node.',
  },
  configuration_changed: {
    message:
      "Core's sandbox configuration changed (generation {now}); this node serves generation {registered} and prepares the change itself, so this command changes nothing",
    hint: 'Nodes shows Preparing target, then Ready for target; on Preparation failed, see sudo oac-node status and the service log.',
  },
  provider_file_changed: {
    message:
      'This node registered with other node settings than this command gives ({path}); this command changes nothing',
    hint: 'A node keeps the settings it registered with. To change them, remove it on Nodes, uninstall it, then add it again.',
  },
  // Not a failure: the one note an install prints for Docker nodes (SEC-08).
  docker_group_root: {
    message: 'oac-node is in the docker group, which is root-equivalent on this host',
    hint: 'Use a dedicated host (or rootless Docker, or microsandbox) and treat the oac-node account as root.',
  },
  installer_busy: {
    message: 'Another oac-node installer or uninstaller is running on this host{holder}',
    hint: 'Wait for it to finish, then run the command again.',
  },
  lock_unsafe: {
    message:
      "The installer's lock {path} {reason}: oac-node locks only in a directory that root alone can write",
    hint: 'Something other than oac-node made it. Find out what, remove it, then run the command again.',
  },
  host_copied: {
    message:
      'Node {node_id} was registered on another host: this host has another machine ID (a copy of its disk or VM image)',
    hint: 'The original host keeps the node. To make this host a node of its own: sudo oac-node uninstall --installation-id {id} --force, then paste a new line from Web (Nodes → Add node). If this is the same host and its machine ID was changed on purpose, sudo oac-node status prints the command that confirms it.',
  },
  same_host_connected: {
    message:
      'Core has node {node_id} connected from another host now: this host is a copy, and --same-host would make two hosts one node',
    hint: 'Leave the original as it is. To make this host a node of its own: sudo oac-node uninstall --force, then paste a new line from Web (Nodes → Add node).',
  },
  same_host_unconfirmed: {
    message:
      'Core could not be asked whether node {node_id} runs on another host ({reason}), so --same-host confirms nothing',
    hint: 'Run it again once this host reaches Core.',
  },
  node_state_lost: {
    message: 'This host registered node {node_id}, but its node state {dir} is gone',
    hint: "A lost node state is a recovery incident: restore it from its backup together with Core's database and the provider storage. To give the node up instead, remove it on Nodes, run sudo oac-node uninstall --installation-id {id} --force, then add the host again.",
  },
  not_ready_in_time: {
    message: 'The node did not become connected and ready within {seconds} s ({why})',
    hint: 'Logs: sudo journalctl -u {unit}',
  },
  // The earlier guide's troubleshooting: registered but never connected.
  never_connected: {
    message: 'The node registered but did not connect to Core within {seconds} s',
    hint: 'Usually the host cannot reach Core at {core_url}, or a reverse proxy in front of Core does not pass the WebSocket at {websocket}. Logs: sudo journalctl -u {unit}',
  },
  interrupted: {
    message: 'Interrupted ({signal}): the run stopped between two steps',
    hint: 'Run the same command again to continue: finished steps stay done and downloads resume.',
  },
  core_still_lists: {
    message: 'Core still lists this node',
    hint: 'Remove it on Nodes first, then run the uninstall command again (if Core is gone for good, add --force).',
  },
  bundle_unreadable: {
    message: 'The bundle {path} cannot be used: {reason}',
    hint: 'Copy it again from the machine that made it, and check that its SHA-256 is the one oac-node bundle printed.',
  },
  bundle_source_changed: {
    message: '{file} changed after it was downloaded and verified',
    hint: 'Run the command again: it downloads that file again.',
  },
  program_copy_mismatch: {
    message:
      'The copy of {source} has SHA-256 {actual}, not {expected}: it changed while it was copied, and nothing was installed',
    hint: 'Run the command again with an installer that nothing else writes to (the one-line command keeps its own copy).',
  },
  bundle_work_unsafe: {
    message: 'Cannot use the work directory {path}: {reason}',
    hint: 'Remove it if it is yours, or write the bundle into a directory only you can write (--out).',
  },
  bundle_manifest_mismatch: {
    message: 'The bundle {path} holds another release manifest than the one this command names',
    hint: 'Use the bundle whose manifest SHA-256 oac-node bundle printed for this command, or make the command for this bundle.',
  },
  bundle_other_release: {
    message:
      "The bundle {path} holds release {theirs}, but Core's configuration names release {ours}",
    hint: 'Make a bundle of release {ours} (oac-node bundle --release {ours}) on a machine that reaches the console, copy it here, and run the command again.',
  },
  bundle_incomplete: {
    message: 'The bundle {path} lacks {file}, which a {provider} node needs',
    hint: 'Make the bundle again without --provider, or with --provider {provider}.',
  },
  bundle_damaged: {
    message: 'The bundle {path} is damaged: {file} does not match the release manifest',
    hint: 'Copy it again from the machine that made it, and check that its SHA-256 is the one oac-node bundle printed.',
  },
  core_pin_mismatch: {
    message: 'Core at {origin} did not present the key the pin {pin} names; nothing was sent to it',
    hint: "Pin a certificate the server sends (below; most servers send their CA's intermediate but not the root). If Core's CA was replaced, copy a fresh command from Web; otherwise something between this host and Core answers in its place.",
  },
  core_gone: {
    message: 'Cannot ask Core at {origin} whether the node was removed: {reason}',
    hint: 'If that Core is gone for good, run the uninstall command again with --force.',
  },
  proxy_invalid: {
    message: 'The proxy variable {name} is not a valid proxy URL',
    hint: 'Use http://[user:password@]host:port, with special characters in the user and password percent-encoded (@ as %40, : as %3A, % as %25).',
  },
  proxy_unsupported_scheme: {
    message:
      'The proxy variable {name} uses {scheme}://, but only http:// and https:// proxies are supported',
    hint: 'Use http://[user:password@]host:port, with special characters in the user and password percent-encoded (@ as %40, : as %3A, % as %25).',
  },
  no_proxy_invalid: {
    message:
      'The proxy variable {name} has an entry that is not a host name, address or host:port: {entry}',
    hint: 'Separate entries with commas: example.com,.internal,10.0.0.0/8,host:8080.',
  },
  proxy_control_character: {
    message:
      'The proxy variable {name} holds a control character (a carriage return, a line break or another)',
    hint: 'Set it again without one: a file with Windows line endings (CRLF), such as /etc/environment, leaves a carriage return at the end of every value.',
  },
  // Downloads (DL-01…04; docs/downloads.md). `{via}` is ` (via proxy http://***@host:port)`
  // or empty; no message carries a URL credential or a proxy password (SEC-03).
  download_stalled: {
    message: 'Downloading {file} stalled: less than {min} arrived in {window} ({kept} kept)',
    hint: "Check the host's network connection and proxy settings, then run the command again: it resumes where it stopped.",
  },
  download_interrupted: {
    message: 'Downloading {file} failed after {received} of {total}{via}: {reason}',
    hint: "Check the host's network connection and proxy settings, then run the command again: it resumes where it stopped.",
  },
  download_server_error: {
    message: '{host} answered HTTP {status} for {file}{via}',
    hint: "Check the host's network connection and proxy settings, then run the command again: it resumes where it stopped.",
  },
  download_http_status: {
    message: '{host} answered HTTP {status} for {file}{via}',
    hint: 'Check that the console serves the release this command names, then run the command again.',
  },
  download_proxy_auth: {
    message: 'Downloading {file} failed{via}: {reason}',
    hint: 'Check the user and password in the proxy variable (percent-encode @ as %40 and : as %3A), then run the command again.',
  },
  download_tls: {
    message: 'Downloading {file} failed{via}: {reason}',
    hint: "TLS verification is always on: check the host's clock, and that no proxy intercepts https (the installer tunnels https through CONNECT).",
  },
  download_size_mismatch: {
    message: 'The server sends {served} for {file}, but the release manifest says {expected} bytes',
    hint: 'The server and the release manifest disagree: check that the console serves the release it names, then run the command again.',
  },
  download_corrupt: {
    message:
      '{file} does not match the release manifest: its SHA-256 is {actual}, the manifest says {expected}',
    hint: 'The damaged download was deleted. Run the command again; if this repeats, something between this host and the release (a proxy, or the server) alters the file.',
  },
  download_disk_full: {
    message: 'The file system of {path} is full',
    hint: 'Free space there (df -h {dir} shows it), then run the command again: the download resumes where it stopped.',
  },
  download_write: {
    message: 'Cannot write {path}: {reason}',
    hint: 'Check the file system, then run the command again.',
  },
  download_redirect: {
    message: 'Downloading {file}: {why}',
    hint: 'The console must redirect node files to an https address (plain http only on loopback).',
  },
  download_url: {
    message: 'Cannot download from {what}',
  },
  installation_id_choose: {
    message:
      'This host records more than one installation ({ids}): name one with --installation-id',
  },
  nothing_installed: {
    message: 'This host records no installation of oac-node',
    hint: 'Add a node with the line from Web (Nodes → Add node); one removed with uninstall --force has no credential here any more, and Web may still list its node: remove it there. Files an installation left without a record are named by its ID: sudo oac-node uninstall --installation-id ID',
  },
  installation_id_invalid: {
    message:
      "--installation-id must be 1 to 64 characters of A-Z, a-z, 0-9, '.', '_' and '-', starting with a letter or digit",
  },
  upgrade_rolled_back: {
    message:
      'oac-node {failed} did not become ready ({why}); rolled back: the node runs oac-node {previous} again, connected and ready',
    hint: 'Why the new program failed: sudo journalctl -u {unit}. The previous program runs again with its own record; run the line again once the release is fixed.',
  },
  rollback_not_ready: {
    message:
      'oac-node {failed} did not become ready ({why}), and oac-node {previous}, put back, is not ready either ({again})',
    hint: 'Logs: sudo journalctl -u {unit}. Run the line again once the cause is fixed: it converges from here.',
  },
  service_exited: {
    message: 'The node service {unit} stopped ({state}, exit status {status})',
    hint: 'Logs: sudo journalctl -u {unit}',
  },
  downgrade_refused: {
    message:
      "This host's node program is oac-node {theirs}, newer than this installer ({ours}); nothing was changed",
    hint: "Run the line Core's console shows now. To go back to {ours} on purpose, run its install command with --allow-downgrade (docs/operator-guide.md, Upgrading a node).",
  },
  journal_newer: {
    message:
      'The record {path} was written by a newer oac-node (record format {format}; this one reads format {ours}); nothing was changed',
    hint: "Use the newer oac-node: run the line Core's console shows now.",
  },
  journal_damaged: {
    message: 'The record {path} is damaged or of an unknown format',
    hint: "Move it aside and run the command again: without a record, uninstall removes only what it can prove is this installation's.",
  },
  proxy_settings_damaged: {
    message: 'The saved proxy settings {path} are damaged: {problem}',
    hint: 'Set the proxy variables for this command (they take precedence over the saved ones), or move the file aside; the install command writes it anew.',
  },
  node_file_damaged: {
    message: "The node's file {path} is damaged: {problem}",
    hint: 'The node account writes it; move it aside (or restore it) and run the command again.',
  },
  identity_core_differs: {
    message:
      "The node's identity {path} names Core at {theirs}, but this installation's record names {ours}",
    hint: "Someone changed the node account's files: check the host, then uninstall with --force and install again.",
  },
  manifest_unavailable: {
    message: 'This console has no node files for release {release} (HTTP {status} for {path})',
    hint: 'The console serves node files from its release directory or redirects to the release: check that it holds this release, then run the command again.',
  },
  manifest_invalid: {
    message: 'The release manifest is invalid: {detail}',
    hint: 'The console serves a damaged or foreign manifest for this release: check its node files, then run the command again.',
  },
  release_unknown: {
    message: "Core's sandbox configuration names no release this console serves",
    hint: "Check Core's sandbox configuration (Settings → Sandbox and scheduling), then run the command again.",
  },
  image_mismatch: {
    message: "Docker loaded {reference} with ID {actual}, not the release's {expected}",
    hint: 'The image archive was verified, so Docker holds another image under that name: remove it (sudo docker image rm {reference}), then run the command again.',
  },
  store_image_invalid: {
    message: '{file} holds no OCI image layout (index.json)',
    hint: 'The file matched the release manifest, so the release itself is damaged: report it to whoever published the release.',
  },
  prepare_failed: {
    message: 'Preparing the node as oac-node failed: {detail}',
    hint: 'Run the command again; if this repeats, report it with the lines above.',
  },
  prepare_request_invalid: {
    message: 'oac-node _prepare got an invalid request on standard input: {detail}',
    hint: "It is started by oac-node's installer only; run the install command instead.",
  },
  directory_missing: {
    message: '{path} does not exist, and the installer puts a file there',
    hint: 'Create it as root (install -d -m 0755 {path}), then run the same command again.',
  },
  path_taken: {
    message: "{path} is there, and oac-node's installer did not write it",
    hint: 'It may be another program of that name: move it aside, then run the same command again.',
  },
  systemctl_failed: {
    message: 'systemctl {command} failed: {reason}',
    hint: "systemd says why in sudo journalctl -b -n 50, and for the node's unit in sudo systemctl status and sudo systemctl cat (which shows its drop-ins); fix the cause, then run the command again: it continues where this run stopped.",
  },
  unit_masked: {
    message: '{unit} is masked ({path} links to /dev/null): systemd was told never to start it',
    hint: 'If the node should run on this host, run sudo systemctl unmask {unit}, then run the command again.',
  },
  unit_masked_runtime: {
    message:
      '{unit} is masked until the next boot ({path} links to /dev/null): systemd was told not to start it',
    hint: 'If the node should run on this host, run sudo systemctl unmask --runtime {unit}, then run the command again.',
  },
  not_a_file: {
    message: '{path} exists and is a directory, not a file',
    hint: 'Move it aside and run the command again.',
  },
  account_tool_failed: {
    message: '{command} failed (exit status {status}): {reason}',
    hint: 'The account tools say why; check /etc/passwd, /etc/group and /etc/shadow (sudo pwck -r, sudo grpck -r) and that nothing else holds their lock, then run the command again: it continues where this run stopped.',
  },
  lock_failed: {
    message: 'The installer lock {path} could not be taken: flock {reason}',
    hint: "flock comes with util-linux on every Debian; check that it is installed and that /run/oac-node is root's, then run the command again.",
  },
  program_unreadable: {
    message: 'This program cannot read itself ({path}), so it cannot be installed from here',
    hint: 'Run the command again with the installer the one-line command keeps (sudo ~/.oac/node-bootstrap/<sha256>), or paste the line again.',
  },
  not_a_directory: {
    message: '{path} exists and is not a directory (a link or a file)',
    hint: 'Move it aside and run the command again.',
  },
  not_installed: {
    message: 'No node of installation {id} is recorded on this host',
    hint: 'Check the installation ID (sudo ls /etc/oac-node). One removed with uninstall --force has no credential here any more, and Web may still list its node: remove it there (Nodes).',
  },
  identity_unreadable: {
    message: 'The node identity {path} is damaged; restore the state directory from its backup',
  },
  // `{problem}`: `is not JSON: …`, `does not exist`, or `has N problems:` with each below it.
  provider_file_invalid: {
    message: 'The provider file {path} {problem}',
  },
  provider_file_unreadable: {
    message: 'Cannot read the provider file {path}: {reason}',
  },
  not_registered: {
    message: 'The node has no identity after preparation',
    hint: 'Run the command again; if this repeats, report it with the lines above.',
  },
  // oac-node command's read of the console's SHA256SUMS (src/net/installer-checksum.ts): the
  // same lines as Core's failures, with the way around them (--installer-sha256) as the hint.
  installer_checksum_unreachable: {
    message: 'Cannot reach Core at {origin}: {reason}',
    hint: "Check the host's network, or pass --installer-sha256 HEX.",
  },
  installer_checksum_http_status: {
    message: 'Core answered HTTP {status} to {route}',
    hint: 'Check the console URL (--console-url), or pass --installer-sha256 HEX.',
  },
  // `{problem}`: `exceeds N bytes`, or `lists no single SHA-256 for oac-node`.
  installer_checksum_invalid: {
    message: "The console's {route} answer {problem}",
    hint: 'Check the console URL (--console-url), or pass --installer-sha256 HEX.',
  },
} as const satisfies Record<string, MessageEntry>;

export type MessageCode = keyof typeof MESSAGES;

/** Fills `{name}` placeholders; a missing value is left visible rather than silently dropped. */
export function message(code: MessageCode, values: Record<string, string | number> = {}): string {
  return fill(MESSAGES[code].message, values);
}

/** The hint, its placeholders filled like the message's. */
export function hint(
  code: MessageCode,
  values: Record<string, string | number> = {},
): string | undefined {
  const entry: MessageEntry = MESSAGES[code];
  return entry.hint === undefined ? undefined : fill(entry.hint, values);
}

function fill(template: string, values: Record<string, string | number>): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) =>
    name in values ? String(values[name]) : whole,
  );
}

/** The OacError of a table entry: its message filled in, its hint attached. */
export function oacError(
  code: MessageCode,
  values: Record<string, string | number> = {},
  options: Omit<OacErrorOptions, 'hint'> = {},
): OacError {
  return new OacError(code, message(code, values), { ...options, hint: hint(code, values) });
}
