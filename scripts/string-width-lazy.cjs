// string-width, loaded when first asked (issue #41). yargs and cliui import it at start and use it
// only to lay out help text, which most runs never print; loading it builds an Intl.Segmenter and
// compiles Unicode property regexes (about 40 ms of every command's start, in two copies: yargs'
// 8.x and cliui's 7.x). `npm run build` bundles this in place of every `string-width` import
// (scripts/build.ts): yargs', cliui's, wrap-ansi's and listr2's (cli-truncate's) all get the one
// 8.x copy, which counts the columns of our text (ASCII help, listr2's rows of printable text)
// as 7.x does. Tests under tsx use the real ones; test/host/executable.test.ts compares the
// executable's help with theirs, and the terminal tests draw listr2's rows with this one.
'use strict';

let real;

function stringWidth(string, options) {
  real ??= require('../node_modules/string-width/index.js').default;
  return real(string, options);
}

module.exports = stringWidth;
module.exports.default = stringWidth;
