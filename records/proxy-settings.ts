// The proxy settings an installed node reaches Core with (HOST-06): /etc/oac-node/<id>.env, the
// six variables of the latest install, written by root and read here by the same module
// (./env-file.ts), so that status and uninstall see exactly the variables systemd gives the
// service; a file that module did not write is refused with one line, never half read.
// Uninstall and status ask Core through them, as the service does, so a host that reaches Core
// only through a proxy is not told that Core is gone. The caller's own proxy variables take
// precedence: when any of the six is set, those are used as a whole (mixing the two sets would
// let a saved lowercase name silently override the caller's uppercase one).
import type { Host } from '../src/host/host.ts';
import type { Layout } from '../src/layout.ts';
import { proxyEnvFrom, type ProxyEnv } from '../src/net/proxy-env.ts';
import { parseEnvFile, readEnvFile } from './env-file.ts';

export async function proxyEnvForNode(
  host: Host,
  names: Layout,
  callerEnv: Record<string, string | undefined> = process.env,
): Promise<ProxyEnv> {
  const caller = proxyEnvFrom(callerEnv);
  if (Object.keys(caller).length > 0) return caller;
  return savedProxyEnv(host, names);
}

/** The saved six; none when the file is absent (the node was installed without a proxy). */
export async function savedProxyEnv(host: Host, names: Layout): Promise<ProxyEnv> {
  const content = await readEnvFile(host, names.envFile);
  if (content === undefined) return {};
  return parseEnvFile(content, names.envFile);
}
