import type { Request, Response } from 'express';
import { pipeline } from 'node:stream/promises';
import type { Domain } from '../domain.ts';
import type { ResourceService } from '../kernel/resource-service.ts';
import { restPath } from '../kernel/resource.ts';
import type { Scope } from '../kernel/scopes.ts';
import type { OpenedFile } from '../kernel/attachments.ts';
import { multipartRefusal, readSingleFile } from '../http/multipart.ts';
import { authorize, contextOf, ctx } from './gate.ts';
import type { RegisterRoute, RestConfig } from './api-router.ts';
import { linkedSingle } from './file-links.ts';

// The REST face of attachment custom fields (src/kernel/attachments.ts): PUT (multipart/form-data, one file part)
// and DELETE on /{resource}/{id}/custom_fields/{field_id}, with the record's write scope and If-Match, answering
// the record with its new ETag; and GET /files/{file_id}, the bytes, by a signed link or with the key.

export function registerAttachmentRoutes(register: RegisterRoute, domain: Domain, config: RestConfig, service: ResourceService): void {
  const path = `/${restPath(service.def)}/:id/custom_fields/:field_id`;
  const write = `${service.def.scope}:write` as Scope;
  register('put', path, authorize(write), async (req, res) => {
    // The media type from the headers first (415, as a JSON route's), then the record, If-Match and the field,
    // and only then the body.
    const refused = multipartRefusal(req);
    if (refused) throw refused;
    const context = ctx(res);
    const ifMatch = req.get('if-match');
    const target = await domain.attachments.target(context, service, String(req.params.id), String(req.params.field_id), ifMatch);
    const file = await readSingleFile(req, target.maxBytes);
    sendRecord(res, await linkedSingle(domain, await domain.attachments.attach(context, target, ifMatch, file)));
  });
  register('delete', path, authorize(write), async (req, res) => {
    const context = ctx(res);
    const ifMatch = req.get('if-match');
    const target = await domain.attachments.target(context, service, String(req.params.id), String(req.params.field_id), ifMatch);
    sendRecord(res, await linkedSingle(domain, await domain.attachments.clear(context, target, ifMatch)));
  });
}

function sendRecord(res: Response, single: { record: unknown; etag: string }): void {
  res.setHeader('ETag', single.etag);
  res.status(200).json({ data: single.record });
}

/** RFC 6266 Content-Disposition: an ASCII fallback filename and the exact one as filename* (RFC 8187). */
export function contentDisposition(filename: string): string {
  const fallback = filename.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  const exact = encodeURIComponent(filename).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${fallback}"; filename*=UTF-8''${exact}`;
}

export function registerFileDownload(register: RegisterRoute, domain: Domain): void {
  register('get', '/files/:file_id', async (req: Request, res: Response) => {
    const fileId = String(req.params.file_id);
    const expires = typeof req.query.expires === 'string' ? req.query.expires : undefined;
    const signature = typeof req.query.signature === 'string' ? req.query.signature : undefined;
    // With a key: the key decides (its tenant, the read scope of the record's resource). Without: the signature.
    const file: OpenedFile =
      req.get('authorization') !== undefined || (expires === undefined && signature === undefined)
        ? await domain.attachments.openWithKey(contextOf(req), fileId)
        : await domain.attachments.openSigned(fileId, expires, signature);
    res.status(200);
    res.setHeader('Content-Type', file.contentType);
    res.setHeader('Content-Length', String(file.size));
    res.setHeader('Content-Disposition', contentDisposition(file.filename));
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Content-Security-Policy', "default-src 'none'; sandbox");
    res.setHeader('Cache-Control', 'private, no-cache');
    res.setHeader('ETag', `"${file.sha256}"`);
    await pipeline(file.stream, res);
  });
}
