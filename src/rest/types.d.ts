import type { Principal } from '../kernel/context.ts';
import type { AppError } from '../kernel/errors.ts';
import type { ApiVersions } from '../kernel/versioning.ts';

declare global {
  namespace Express {
    interface Request {
      requestId: string;
      /** Outcome of authentication; an error is raised only once a route matched. */
      auth?: { principal: Principal } | { error: AppError };
      /** The versions the app accepts (set by identify()). */
      apiVersions?: ApiVersions;
    }
  }
}
