#!/usr/bin/env bash
# The docs' pictures (issue #25 item 5): docs/pictures/<name>.svg from <name>.dot, by Graphviz
# (Debian's graphviz, installed by scripts/setup.sh). test/unit/pictures.test.ts checks that the
# SVG files in the repository are what these sources make.
#   bash scripts/pictures.sh      write every SVG
set -euo pipefail
cd "$(dirname "$0")/../docs/pictures"
for source in *.dot; do
  dot -Tsvg "$source" -o "${source%.dot}.svg"
done
echo "pictures.sh: wrote $(ls ./*.dot | wc -l) pictures in docs/pictures/"
