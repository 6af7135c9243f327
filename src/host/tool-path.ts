/** The fixed PATH every tool of the host is run with (SEC-07): never the caller's. */
export const TOOL_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
