# shellcheck shell=bash
# Sourced by scripts/e2e-rootfs.sh and scripts/vm-idempotence.sh: the Debian mirror their
# debootstrap builds use.

# debian_mirror SUITE OVERRIDE: OVERRIDE when set, else the first URI of a SUITE entry (not
# -security/-updates) in this machine's apt sources; nothing and status 1 when there is none.
debian_mirror() {
  local suite=$1 override=$2 f found=
  if [[ -n $override ]]; then
    echo "$override"
    return
  fi
  for f in /etc/apt/sources.list.d/*.sources; do
    [[ -r $f ]] || continue
    # deb822 stanzas are separated by blank lines; print the URI of one whose Suites has $suite.
    found=$(awk -v suite="$suite" '
      BEGIN { RS = ""; FS = "\n" }
      {
        uri = ""; ok = 0
        for (i = 1; i <= NF; i++) {
          if ($i ~ /^URIs:/) { split($i, a, /[ \t]+/); uri = a[2] }
          if ($i ~ /^Suites:/) { n = split($i, s, /[ \t]+/); for (j = 2; j <= n; j++) if (s[j] == suite) ok = 1 }
        }
        if (ok && uri != "") { print uri; exit }
      }' "$f")
    [[ -z $found ]] || break
  done
  if [[ -z $found ]]; then
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
      [[ -r $f ]] || continue
      found=$(awk -v suite="$suite" '
        $1 == "deb" { i = 2; if ($2 ~ /^\[/) { while ($i !~ /\]$/) i++; i++ } if ($(i + 1) == suite) { print $i; exit } }' "$f")
      [[ -z $found ]] || break
    done
  fi
  [[ -n $found ]] || return 1
  echo "$found"
}
