// Docker for host tests: a real daemon (scripts/dockerd.sh starts one on the bare machine), driven
// through the real `docker` client. Tests that need it call requireDocker() first, so a missing
// daemon fails with one line that says how to start it instead of a wall of client errors.
import { execa } from 'execa';

export const DOCKER_NOT_RUNNING =
  "Docker is not running: start it with 'bash scripts/dockerd.sh start'";

/** Throws DOCKER_NOT_RUNNING unless `docker info` answers; returns the daemon's version. */
export async function requireDocker(): Promise<string> {
  const result = await execa('docker', ['info', '--format', '{{.ServerVersion}}'], {
    reject: false,
    timeout: 15_000,
  });
  const version = String(result.stdout).trim();
  if (result.exitCode !== 0 || version === '') throw new Error(DOCKER_NOT_RUNNING);
  return version;
}

/** `docker load -i FILE` (plain or gzip'd); returns the references and IDs it reports. */
export async function dockerLoad(file: string): Promise<string[]> {
  const { stdout } = await execa('docker', ['load', '-i', file]);
  // "Loaded image: NAME:TAG" for tagged images, "Loaded image ID: sha256:…" for untagged ones.
  return [...stdout.matchAll(/^Loaded image(?: ID)?: (\S+)$/gm)].map((m) => m[1] as string);
}

/** The image ID Docker holds for `ref`, or undefined when it has no such image. */
export async function imageId(ref: string): Promise<string | undefined> {
  const result = await execa('docker', ['image', 'inspect', '--format', '{{.Id}}', ref], {
    reject: false,
  });
  return result.exitCode === 0 ? String(result.stdout).trim() : undefined;
}

export interface ImageInspect {
  Id: string;
  RepoTags: string[];
  Size: number;
}

/** `docker image inspect REF`, the fields tests compare. */
export async function inspectImage(ref: string): Promise<ImageInspect> {
  const { stdout } = await execa('docker', ['image', 'inspect', ref]);
  const [image] = JSON.parse(stdout) as ImageInspect[];
  if (image === undefined) throw new Error(`docker image inspect ${ref} printed no image`);
  return image;
}

/** Removes `ref` if Docker has it (so tests leave no image behind); no error when absent. */
export async function removeImage(ref: string): Promise<void> {
  if ((await imageId(ref)) === undefined) return;
  await execa('docker', ['image', 'rm', '--force', ref]);
}
