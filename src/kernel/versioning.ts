import { AppError } from './errors.ts';

// API versions are dates. Clients choose one per request with the Fieldline-Version header; without it the
// version pinned on the API key applies. Changes within a version are additive only.
export const VERSION_HEADER = 'Fieldline-Version';
export const CURRENT_VERSION = '2026-04-30';
export const supportedVersions = [CURRENT_VERSION] as const;

export function resolveVersion(requested: string | undefined, pinned: string): string {
  if (requested === undefined || requested.trim() === '') return pinned;
  const value = requested.trim();
  if (!(supportedVersions as readonly string[]).includes(value)) {
    throw new AppError('version.invalid', `Unknown API version "${value}" in ${VERSION_HEADER}; supported: ${supportedVersions.join(', ')}.`);
  }
  return value;
}
