// Examples in --help that can be copied (issue #25 item 4): yargs sets an example and its
// description side by side and wraps the command in the middle. An example with no description
// gets the whole width, so each one is two such lines: the description as a shell comment, then
// the command. Both lines paste into a shell as they are.
export const comment = (description: string): string => `# ${description}`;
