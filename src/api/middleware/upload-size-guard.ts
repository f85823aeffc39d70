import type { Request, RequestHandler } from 'express';
import type { Readable, Writable } from 'node:stream';
import { Transform } from 'node:stream';
import * as OpenApiValidator from 'express-openapi-validator';
import { AppError } from '../../common/errors/app-error.ts';

// The limits of the one multipart operation, the cover upload (POST /projects/{id}/cover). Its only member is the
// file; the parser reads a few small text fields so that the validator can name them in its 400. Every
// limit holds whether or not the client declares a Content-Length: parsing stops at the first one crossed, and
// nothing is buffered past it.
const coverUploadLimits = {
  fileBytes: 10 * 1024 * 1024,
  textFields: 8,
  textFieldBytes: 1024,
  fieldNameBytes: 100,
  // The file and the text fields.
  parts: 9,
  headerPairsPerPart: 20,
  // Room for the boundaries and part headers around the file and text fields.
  envelopeBytes: 64 * 1024,
  get totalBytes(): number {
    return this.fileBytes + this.envelopeBytes;
  },
};

/**
 * Refuses an upload whose declared length is over the limit before reading any of it. (Bodies without a declared
 * length are counted as they are read, see `coverUploader`.)
 */
export function uploadSizeGuard(): RequestHandler {
  return (req, res, next) => {
    const declared = Number(req.headers['content-length']);
    if (!Number.isFinite(declared) || declared <= coverUploadLimits.totalBytes) return next();
    res.set('Connection', 'close');
    next(new AppError('payload-too-large', `The file is larger than the limit of ${coverUploadLimits.fileBytes} bytes.`));
  };
}

/**
 * The multipart parser's options (express-openapi-validator's `fileUploader`, handed to multer): its limits, and the
 * body fed through a byte counter, so that what no part limit sees (bytes before the first part or after the last)
 * is bounded too.
 */
export const coverUploader = {
  limits: {
    fileSize: coverUploadLimits.fileBytes,
    files: 1,
    fields: coverUploadLimits.textFields,
    fieldSize: coverUploadLimits.textFieldBytes,
    fieldNameSize: coverUploadLimits.fieldNameBytes,
    parts: coverUploadLimits.parts,
    headerPairs: coverUploadLimits.headerPairsPerPart,
  },
  streamHandler(req: Readable, parser: Writable): void {
    let received = 0;
    const counter = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        received += chunk.length;
        if (received <= coverUploadLimits.totalBytes) return done(null, chunk);
        // An HttpError passes through the validator as is; a plain error would become a 500.
        done(new OpenApiValidator.error.RequestEntityTooLarge({ path: '', message: `a cover upload is at most ${coverUploadLimits.totalBytes} bytes in all` }));
      },
    });
    counter.once('error', (error) => parser.destroy(error));
    req.pipe(counter).pipe(parser);
  },
};

// What the parser (multer, busboy) says when a limit is crossed or the body is not a complete multipart body, as
// the validator hands it on (its status and the parser's message), and what we answer instead.
const parserFailures: Record<string, () => AppError> = {
  'File too large': () => tooLarge(`The file is larger than the limit of ${coverUploadLimits.fileBytes} bytes.`),
  'Too many files': () => tooLarge('A cover upload carries one file, in the field `file`.'),
  'Too many fields': () => tooLarge(`A cover upload has at most ${coverUploadLimits.textFields} text fields besides the file.`),
  'Too many parts': () => tooLarge(`A cover upload has at most ${coverUploadLimits.parts} parts.`),
  'Field value too long': () => tooLarge(`A text field of a cover upload is at most ${coverUploadLimits.textFieldBytes} bytes.`),
  'Field name too long': () => tooLarge(`A field name of a cover upload is at most ${coverUploadLimits.fieldNameBytes} bytes.`),
  'Unexpected end of form': () => malformed('The multipart body ends before its closing boundary.'),
  'Unexpected end of file': () => malformed('The multipart body ends in the middle of the file.'),
  'Malformed part header': () => malformed('A part of the multipart body has a malformed header.'),
  'Field name missing': () => malformed('A part of the multipart body has no field name.'),
  // A Content-Type that Express reads as multipart but busboy cannot parse (`boundary=X;`, `boundary = X`).
  'Malformed content type': () => malformed(contentTypeForm),
  'Unsupported content type': () => malformed(contentTypeForm),
  'Multipart: Boundary not found': () => malformed(contentTypeForm),
};
const contentTypeForm = 'The Content-Type of a cover upload must read `multipart/form-data; boundary=<boundary>`.';

/** The answer to a multipart parsing failure; undefined for anything else. */
export function multipartFailure(error: unknown, req: Request): AppError | undefined {
  if (!req.is('multipart/form-data') || !(error instanceof Error)) return undefined;
  // busboy names the refused type after the colon: the same failure for any type.
  return parserFailures[error.message.replace(/^(Unsupported content type):.*$/s, '$1')]?.();
}

function tooLarge(detail: string): AppError {
  return new AppError('payload-too-large', detail);
}

function malformed(detail: string): AppError {
  return new AppError('malformed-request', detail);
}
