import type { PrismaClient } from '../generated/prisma/client.ts';
import type { SigningKeys } from '../kernel/cursor.ts';
import type { ApiVersions } from '../kernel/versioning.ts';
import { type AdminService } from '../domain.ts';

/** What a command action gets: lazy access to the database (opened only after its arguments are valid) and output. */
export interface CommandContext {
  readonly json: boolean;
  /** The API versions keys may be pinned to: API_VERSIONS of the environment, as the server reads it. */
  apiVersions(): ApiVersions;
  admin(): Promise<AdminService>;
  signingKeys(): Promise<SigningKeys>;
  prisma(): Promise<PrismaClient>;
  /** Prints the command's result: exactly this object with --json, otherwise the readable lines. */
  result(object: Record<string, unknown>, human: string[]): void;
}

export function yesNo(value: boolean): string {
  return value ? 'yes' : 'no';
}
