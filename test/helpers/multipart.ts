/**
 * multipart/form-data bodies by hand (RFC 7578), for `app.inject` or a raw socket: text fields
 * and file parts in the order given.
 */
import { randomBytes } from 'node:crypto';

export interface FieldPart {
  name: string;
  value: string;
}

export interface FilePart {
  name: string;
  data: Buffer;
  /** Defaults to `upload.bin`; the service never trusts it. */
  filename?: string;
  /** Defaults to `application/octet-stream`; the service never trusts it either. */
  contentType?: string;
}

export type Part = FieldPart | FilePart;

export interface MultipartBody {
  payload: Buffer;
  headers: { 'content-type': string };
  boundary: string;
}

/** Builds the body and its Content-Type header. */
export function multipart(parts: Part[], boundary = `----storyshelf${randomBytes(12).toString('hex')}`): MultipartBody {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    if ('data' in part) {
      const filename = part.filename ?? 'upload.bin';
      chunks.push(
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"; filename="${filename}"\r\n` +
            `Content-Type: ${part.contentType ?? 'application/octet-stream'}\r\n\r\n`,
        ),
        part.data,
        Buffer.from('\r\n'),
      );
    } else {
      chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"\r\n\r\n${part.value}\r\n`));
    }
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` }, boundary };
}

/** A body with one image part named `file` (the name every upload endpoint reads). */
export function fileUpload(data: Buffer, filename = 'image.png', contentType = 'image/png'): MultipartBody {
  return multipart([{ name: 'file', data, filename, contentType }]);
}
