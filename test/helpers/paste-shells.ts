// Issue #42: the shells operators paste the line into (Debian's packages: scripts/setup.sh here,
// scripts/e2e-rootfs.sh in the e2e hosts), each as the argv that starts it reading the line on
// its standard input; zsh also with the interactive options that broke an earlier line.
export const PASTE_SHELLS = [
  'bash',
  'dash',
  'zsh -f',
  'zsh -f -o noclobber -o nounset -o ksharrays',
  'mksh',
  'busybox sh',
  'fish --no-config',
  'tcsh -f',
] as const;
