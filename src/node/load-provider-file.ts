import { readIfExists } from '../host/files.ts';
import { oacError } from '../messages.ts';
import { parseProviderFile, type ProviderFile } from './provider-file.ts';

export async function loadProviderFile(path: string): Promise<ProviderFile> {
  const raw = await readIfExists(path).catch((error: unknown) => {
    throw oacError('provider_file_unreadable', { path, reason: (error as Error).message });
  });
  if (raw === undefined)
    throw oacError('provider_file_invalid', { path, problem: 'does not exist' });
  return parseProviderFile(raw.toString('utf8'), path);
}
