// esbuild `inject` file: the CommonJS bundle has no import.meta, and yargs calls
// createRequire(import.meta.url) (docs/single-executable.md, pitfall 1). `define` maps
// import.meta.url to this value. It names a directory that never exists: y18n looks for its
// locale files relative to it, and a missing file is fine (ENOENT) where a real but unreadable
// directory is not (EACCES, seen when oac-node ran the executable from root's home).
export const importMetaUrl = 'file:///nonexistent/oac-node/bundle/lib/oac-node.cjs';
