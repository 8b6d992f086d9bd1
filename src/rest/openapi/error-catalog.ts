import { errorCatalog, type ErrorCode } from '../../kernel/errors.ts';

/**
 * The whole catalog, for agents: code, status and title (x-error-codes). A problem's type and doc_url follow from
 * the code by the rule the info states, so they are not repeated here.
 */
export function errorCatalogEntries() {
  return (Object.keys(errorCatalog) as ErrorCode[]).map((code) => ({ code, status: errorCatalog[code].status, title: errorCatalog[code].title }));
}
