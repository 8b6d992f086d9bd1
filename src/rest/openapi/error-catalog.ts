import { docSlug, errorCatalog, type ErrorCode } from '../../kernel/errors.ts';

/** The whole catalog, for agents: code -> status, title, type and doc_url (x-error-codes and the info table). */
export function errorCatalogEntries(errorsUrl: string) {
  return (Object.keys(errorCatalog) as ErrorCode[]).map((code) => ({
    code,
    status: errorCatalog[code].status,
    title: errorCatalog[code].title,
    type: `${errorsUrl}/${code}`,
    doc_url: `${errorsUrl}/${docSlug(code)}`,
  }));
}
