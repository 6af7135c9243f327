// string-width, loaded when first asked (issue #41). yargs and cliui import it at start and use it
// only to lay out help text, which most runs never print; loading it builds an Intl.Segmenter and
// compiles Unicode property regexes (about 40 ms of every command's start, in two copies: yargs'
// and cliui's). `npm run build` bundles this in string-width's place (scripts/build.ts), one
// copy for both: they measure the same columns for the help's text. Tests under tsx use the real
// ones; test/host/executable.test.ts compares the executable's help with theirs.
'use strict';

let real;

function stringWidth(string, options) {
  real ??= require('../node_modules/string-width/index.js').default;
  return real(string, options);
}

module.exports = stringWidth;
module.exports.default = stringWidth;
