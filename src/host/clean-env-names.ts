// SEC-07: the names of the variables that weaken the executable (src/host/clean-env.ts says
// why), apart from the restart itself, so the entry point checks them without loading
// child_process.
/** Read by Node, OpenSSL or libuv, or by the dynamic loader for what we start. */
const WEAKENING = /^(NODE_.*|OPENSSL_.*|SSL_CERT_(FILE|DIR)|UV_.*|LD_.*)$/;

export function weakeningVariables(env: NodeJS.ProcessEnv): string[] {
  return Object.keys(env).filter((name) => WEAKENING.test(name));
}
