import { AppError } from './errors.ts';

// API versions are dates. Clients choose one per request with the Fieldline-Version header; without it the
// version pinned on the API key applies. Changes within a version are additive only.
//
// The versions the server accepts are configuration (API_VERSIONS, default: the current version only), so an
// operator retires a version by removing it from the list. A key pinned to a version that is no longer in the
// list answers 400 version.invalid unless the request names a supported version in the header: silently
// serving it another version would hand its client shapes it was not written for.
export const VERSION_HEADER = 'Fieldline-Version';
/** The newest version this code serves; new keys are pinned to it unless told otherwise. */
export const CURRENT_VERSION = '2026-04-30';
/** The default of API_VERSIONS. */
export const supportedVersions = [CURRENT_VERSION] as const;

const datePattern = /^(\d{4})-(\d{2})-(\d{2})$/;

function isCalendarDate(value: string): boolean {
  const m = datePattern.exec(value);
  if (!m) return false;
  const date = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return date.toISOString().slice(0, 10) === value;
}

/**
 * API_VERSIONS: comma-separated dates (YYYY-MM-DD), none later than the current version, which the list must
 * include (new keys are pinned to it). Unset or blank: the current version only. Returned sorted, oldest first.
 */
export function parseApiVersions(raw: string | undefined): readonly string[] {
  const values = [...new Set((raw ?? '').split(',').map((v) => v.trim()).filter(Boolean))];
  if (values.length === 0) return [...supportedVersions];
  for (const value of values) {
    if (!isCalendarDate(value)) throw new Error(`"${value}" is not a version date (YYYY-MM-DD)`);
    if (value > CURRENT_VERSION) throw new Error(`"${value}" is later than the current version ${CURRENT_VERSION}`);
  }
  if (!values.includes(CURRENT_VERSION)) throw new Error(`the list must include the current version ${CURRENT_VERSION}`);
  return values.sort();
}

/** The versions one server (or one `fieldline` run) accepts. */
export class ApiVersions {
  readonly supported: readonly string[];

  constructor(supported: readonly string[] = supportedVersions) {
    this.supported = [...supported];
  }

  isSupported(version: string): boolean {
    return this.supported.includes(version);
  }

  /** The version of a request: the header when given (and supported), else the key's pinned version (if still supported). */
  resolve(requested: string | undefined, pinned: string): string {
    const list = this.supported.join(', ');
    if (requested === undefined || requested.trim() === '') {
      if (!this.isSupported(pinned)) {
        throw new AppError(
          'version.invalid',
          `This API key is pinned to API version ${pinned}, which is no longer supported; send ${VERSION_HEADER} (supported: ${list}).`,
        );
      }
      return pinned;
    }
    const value = requested.trim();
    if (!this.isSupported(value)) throw new AppError('version.invalid', `Unknown API version "${value}" in ${VERSION_HEADER}; supported: ${list}.`);
    return value;
  }
}

export const defaultApiVersions = new ApiVersions();
