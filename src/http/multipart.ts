import busboy from 'busboy';
import type { Request } from 'express';
import { PassThrough } from 'node:stream';
import { fileTooLarge, type UploadedFile } from '../kernel/attachments.ts';
import { AppError, validationError } from '../kernel/errors.ts';
import { mediaType } from './request-body.ts';

// The one file part of an attachment upload (PUT .../custom_fields/{field_id}), read with busboy as it streams:
// nothing is buffered whole. A declared Content-Length over the field's limit (plus room for the part headers)
// is refused before a byte is read; a streamed file is stopped at the limit (413), and the rest of the body is
// left unread (src/http/body-guard.ts closes the connection after the answer). One file part exactly: none (or
// only an empty one, as a browser form sends without a file chosen) or several is 422 validation.failed.

/** What a multipart body may hold besides the file: the part headers, the boundaries and a few small fields. */
export const MULTIPART_OVERHEAD_BYTES = 64 * 1024;
const LIMITS = { files: 1, fields: 8, fieldSize: 1024, parts: 10, headerPairs: 20 } as const;

function malformed(message: string): AppError {
  return validationError({ file: [message] }, `The multipart body is not one file part: ${message}`);
}

/** 415 unless the request is declared multipart/form-data (checked from the headers, before anything else). */
export function multipartRefusal(req: Request): AppError | null {
  const type = mediaType(req.get('content-type'));
  if (type !== 'multipart/form-data') {
    return new AppError('request.unsupported_media_type', `Send the file as multipart/form-data with one file part (got ${type || 'no Content-Type'}).`);
  }
  const coding = (req.get('content-encoding') ?? 'identity').trim().toLowerCase();
  if (coding !== 'identity') return new AppError('request.unsupported_media_type', `A file upload is sent without Content-Encoding (got ${coding}).`);
  return null;
}

/** Reads the request's one file part, resolving as soon as it begins; its bytes stream through UploadedFile.stream. */
export function readSingleFile(req: Request, maxFileBytes: number): Promise<UploadedFile> {
  const refused = multipartRefusal(req);
  if (refused) return Promise.reject(refused);
  const declared = Number(req.get('content-length') ?? 0);
  if (declared > maxFileBytes + MULTIPART_OVERHEAD_BYTES) return Promise.reject(fileTooLarge(maxFileBytes));
  let parser: busboy.Busboy;
  try {
    // busboy reports its limit once a file reaches it: one byte more than the field allows is the refusal. A
    // filename is UTF-8, as browsers send it (or RFC 5987's filename*).
    parser = busboy({ headers: req.headers, defParamCharset: 'utf8', limits: { ...LIMITS, fileSize: maxFileBytes + 1 } });
  } catch (error) {
    return Promise.reject(malformed((error as Error).message));
  }
  return new Promise<UploadedFile>((resolve, reject) => {
    let file: PassThrough | null = null;
    let settleFinished: { resolve: () => void; reject: (error: Error) => void } | null = null;
    let finishedError: Error | null = null;
    let done = false;
    const stop = () => {
      req.unpipe(parser);
      req.pause();
    };
    /** A refusal: before the file part began, the read fails; after, the file stream and `finished` fail. */
    const fail = (error: Error) => {
      if (done) return;
      done = true;
      stop();
      if (!file) return reject(error);
      file.destroy(error);
      finishedError = error;
      settleFinished?.reject(error);
    };
    parser.on('file', (_name, stream, info) => {
      // busboy destroys an unfinished part's stream with its error when the body ends early ("Unexpected end of
      // form"): every part's stream needs a listener, the ones read only to skip them too, or the process would
      // meet an uncaught error.
      stream.on('error', () => {});
      if (file) {
        stream.resume();
        return;
      }
      // A browser form without a file chosen sends an empty part named "": no file.
      if (!info.filename) {
        stream.resume();
        return;
      }
      const out = new PassThrough();
      // Its reader (the storage's write) sees a failure through its own pipeline; a failure after it finished
      // (a second file part) is reported through `finished`.
      out.on('error', () => {});
      file = out;
      stream.on('limit', () => fail(fileTooLarge(maxFileBytes)));
      stream.on('error', (error: Error) => fail(malformed(error.message)));
      stream.pipe(out);
      const finished = new Promise<void>((resolveFinished, rejectFinished) => {
        settleFinished = { resolve: resolveFinished, reject: rejectFinished };
        if (finishedError) rejectFinished(finishedError);
        else if (done) resolveFinished();
      });
      finished.catch(() => {});
      resolve({ filename: info.filename, declaredType: info.mimeType ?? 'application/octet-stream', stream: out, finished });
    });
    parser.on('filesLimit', () => fail(malformed('holds several file parts; send exactly one')));
    parser.on('partsLimit', () => fail(malformed(`holds more than ${LIMITS.parts} parts`)));
    parser.on('fieldsLimit', () => fail(malformed(`holds more than ${LIMITS.fields} fields besides the file`)));
    parser.on('error', (error: Error) => fail(malformed(error.message)));
    parser.on('close', () => {
      if (done) return;
      if (!file) return fail(malformed('holds no file part'));
      done = true;
      settleFinished?.resolve();
    });
    req.on('aborted', () => fail(malformed('the upload was aborted')));
    req.pipe(parser);
  });
}
