// The boot + Core pair (issue #28 item 5): a fresh throwaway host with the reference Core in its
// network namespace (helpers/core-in-host.ts), stopped afterwards, the Core first, whatever
// happens. Three shapes of one thing:
//   - withHostAndCore(args, fn): a pair for one test;
//   - hostWithCore(args): a file's pair, booted by its before hook, stopped by an after hook;
//   - bootWithCore(args): the pair itself, for a caller that holds several (ansible.test.ts).
import { after } from 'node:test';
import { startCoreInHost, type CoreInHost } from '../helpers/core-in-host.ts';
import { bootHost, type BootOptions, type E2eHost, type HostNet } from './host.ts';

export type { CoreInHost } from '../helpers/core-in-host.ts';

/** The Core's arguments (`--release-dir DIR`, …), or a function that gives them, called once the
 *  host has booted (so a release built on first use is built then, as before). */
export type CoreArgs = string[] | (() => string[] | Promise<string[]>);

export interface PairOptions extends Omit<BootOptions, 'whenNetworked'> {
  /** Runs in the booted host before its Core starts (addKvmDevice, say). */
  prepare?: (host: E2eHost) => Promise<unknown>;
  /** Start the Core while the host boots, as soon as its network exists (not with `prepare`):
   *  a node installed before boots with the host and finds its Core at once. */
  coreEarly?: boolean;
}

export interface HostAndCore {
  readonly host: E2eHost;
  readonly core: CoreInHost;
}

export interface BootedPair extends HostAndCore {
  /** Stops the Core, then the host. */
  stop(): Promise<void>;
}

/** Boots a host, runs `prepare`, starts the Core; the host is stopped again if that fails. */
export async function bootWithCore(
  coreArgs: CoreArgs,
  options: PairOptions = {},
): Promise<BootedPair> {
  const { prepare, coreEarly, ...boot } = options;
  const args = async () => (typeof coreArgs === 'function' ? await coreArgs() : coreArgs);
  let early: Promise<CoreInHost> | undefined;
  if (coreEarly === true && prepare !== undefined)
    throw new Error('coreEarly: the Core would start before prepare');
  const whenNetworked = (net: HostNet) => (early = args().then((a) => startCoreInHost(net, a)));
  let host: E2eHost;
  try {
    host = await bootHost(coreEarly === true ? { ...boot, whenNetworked } : boot);
  } catch (error) {
    await early?.then(
      (c) => c.stop(),
      () => undefined,
    );
    throw error;
  }
  let core: CoreInHost;
  try {
    await prepare?.(host);
    core = await (early ?? startCoreInHost(host, await args()));
  } catch (error) {
    await host.stop();
    throw error;
  }
  return {
    host,
    core,
    async stop() {
      try {
        await core.stop();
      } finally {
        await host.stop();
      }
    },
  };
}

type PairFn = (host: E2eHost, core: CoreInHost) => Promise<void>;

/** A fresh host and its Core for `fn`; both stopped afterwards whatever happens (a test may stop
 *  the Core itself: CoreInHost.stop is idempotent). */
export async function withHostAndCore(coreArgs: CoreArgs, fn: PairFn): Promise<void>;
export async function withHostAndCore(
  coreArgs: CoreArgs,
  options: PairOptions,
  fn: PairFn,
): Promise<void>;
export async function withHostAndCore(
  coreArgs: CoreArgs,
  optionsOrFn: PairOptions | PairFn,
  maybeFn?: PairFn,
): Promise<void> {
  const [options, fn] =
    typeof optionsOrFn === 'function' ? [{}, optionsOrFn] : [optionsOrFn, maybeFn as PairFn];
  const pair = await bootWithCore(coreArgs, options);
  try {
    await fn(pair.host, pair.core);
  } finally {
    await pair.stop();
  }
}

export interface FilePair<P extends BootedPair = BootedPair> extends HostAndCore {
  /** Boots the host and starts its Core, once (a second call waits for the same boot). */
  boot(): Promise<P>;
}

/**
 * A test file's host and Core, for all its tests: call at the top of the file, and `boot()` first
 * in the file's one `before` hook (node 20 runs a file's top-level before hooks at once, not one
 * after another, so the pair registers none of its own). Registers an `after` hook that stops the
 * Core, then the host; after hooks run in the order registered. `host` and `core` are there once
 * boot() has resolved.
 */
export function hostWithCore(coreArgs: CoreArgs, options: PairOptions = {}): FilePair {
  return filePair(() => bootWithCore(coreArgs, options));
}

/** The file's pair that `bootPair` boots on the first boot() (hostWithCore, and the installed
 *  host's installedHostWithCore), stopped by an `after` hook. */
export function filePair<P extends BootedPair>(bootPair: () => Promise<P>): FilePair<P> {
  let booting: Promise<P> | undefined;
  let booted: P | undefined;
  after(async () => {
    await booted?.stop();
  });
  const pair = (): P => {
    if (booted === undefined) throw new Error('the host and Core of this file have not booted');
    return booted;
  };
  return {
    boot: () => (booting ??= bootPair().then((p) => (booted = p))),
    get host() {
      return pair().host;
    },
    get core() {
      return pair().core;
    },
  };
}

/** Makes the host a KVM host for a microsandbox node: root inside makes its own /dev/kvm node
 *  (char 10:232, root:kvm 0660), as a KVM host's udev would; this machine's is never touched. */
export async function addKvmDevice(host: E2eHost): Promise<void> {
  await host.shOk('groupadd --system kvm && mknod -m 0660 /dev/kvm c 10 232 && chgrp kvm /dev/kvm');
}
