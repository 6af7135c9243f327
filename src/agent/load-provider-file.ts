import { OacError } from '../errors.ts';
import { readIfExists } from '../host/files.ts';
import { parseProviderFile, type ProviderFile } from './provider-file.ts';

export async function loadProviderFile(path: string): Promise<ProviderFile> {
  const raw = await readIfExists(path).catch((error: unknown) => {
    throw new OacError(
      'provider_file_invalid',
      `Cannot read the provider file ${path}: ${(error as Error).message}`,
    );
  });
  if (raw === undefined)
    throw new OacError('provider_file_invalid', `The provider file ${path} does not exist`);
  return parseProviderFile(raw.toString('utf8'), path);
}
