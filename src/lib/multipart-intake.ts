/**
 * Receiving the files of a multipart/form-data request: the one receiver under the image uploads
 * (src/images/upload.ts), the file import (src/import/upload.ts) and the library archive
 * (src/archive/upload.ts). Each says its limits, the types it accepts and a destination; the
 * receiver owns what they share (docs/decisions.md, "Requests"): 415 when the body is not
 * multipart; every part read to its end whatever happens, so the client gets the answer rather
 * than a reset connection; the first failure is the one answered; 400 when the required file is
 * missing or the body is malformed; and on any failure what was stored is removed again, so the
 * caller gets either every file or an error and nothing on disk.
 */
import { createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { FastifyRequest } from 'fastify';
import { BadRequest, HttpError, invalidField, TooLarge, UnsupportedType } from '../errors.js';

/** A file part as @fastify/multipart hands it over. */
export interface FilePart {
  type: 'file';
  fieldname: string;
  filename: string;
  file: Readable & { truncated?: boolean };
}

interface FieldPart {
  type: 'field';
  fieldname: string;
  value: unknown;
  valueTruncated: boolean;
}

/** busboy's limits for one request, merged over the app's (src/plugins/images.ts). */
export interface MultipartLimits {
  fileSize?: number;
  files?: number;
  fields?: number;
  fieldSize?: number;
  parts?: number;
}

/** Where accepted files go. */
export interface IntakeDestination<T> {
  /** Stores one accepted file (the `index`-th, from 0) or throws what refuses the request (413, 415...). */
  save(part: FilePart, index: number): Promise<T>;
  /** Removes whatever was stored: the request failed. */
  discard(saved: readonly T[]): Promise<void>;
}

export interface Intake<T> {
  /** The part name that carries files; file parts under other names are read and dropped. */
  field: string;
  /** Files taken at most; later ones are read and dropped. */
  maxFiles: number;
  /** When true, a request with no file is 400 `details[field]: 'is required'`. */
  required: boolean;
  /** This request's parser limits, when not the app's. */
  limits?: Readonly<MultipartLimits>;
  /** The 413 of a file over the parser's `fileSize` limit, when not the generic one. */
  tooLarge?: () => Error;
  /** Accepted types by name, checked before a byte is stored: the error refusing `filename`, or undefined. */
  refuseType?: (filename: string) => Error | undefined;
  /**
   * Where text fields are collected, in arrival order per name (a field cut off by the parser's
   * size limit is 413 naming it); when absent, text fields are read and dropped.
   */
  fields?: Record<string, string[]>;
  destination: IntakeDestination<T>;
}

/**
 * Reads the whole multipart body of `request` as `intake` says and returns what its destination
 * stored, in arrival order. A browser sends an empty file input as a file part with no name and
 * no bytes: that is no file.
 */
export async function receiveMultipart<T>(request: FastifyRequest, intake: Intake<T>): Promise<T[]> {
  if (!request.isMultipart()) throw new UnsupportedType('A multipart/form-data body was expected');
  const saved: T[] = [];
  let failure: unknown;
  try {
    const parts = (intake.limits === undefined ? request.parts() : request.parts({ limits: { ...intake.limits } })) as AsyncIterable<FilePart | FieldPart>;
    for await (const part of parts) {
      if (part.type === 'field') {
        if (intake.fields === undefined) continue;
        if (part.valueTruncated) failure ??= new TooLarge('A form field is too long', { [part.fieldname]: 'is too long' });
        // A part sent as application/json arrives parsed; keep every field as text for the caller.
        else (intake.fields[part.fieldname] ??= []).push(typeof part.value === 'string' ? part.value : JSON.stringify(part.value));
        continue;
      }
      if (failure !== undefined || part.fieldname !== intake.field || saved.length >= intake.maxFiles || part.filename === '') {
        await drain(part.file);
        continue;
      }
      try {
        const refused = intake.refuseType?.(part.filename);
        if (refused !== undefined) throw refused;
        saved.push(await intake.destination.save(part, saved.length));
      } catch (error) {
        failure = error;
        await drain(part.file);
      }
    }
  } catch (error) {
    // The parser gave up (limits, malformed or cut-off body); an earlier failure explains more.
    failure ??= intake.tooLarge !== undefined && (error as { code?: unknown }).code === 'FST_REQ_FILE_TOO_LARGE' ? intake.tooLarge() : error;
  }
  if (failure === undefined && saved.length === 0 && intake.required) failure = invalidField(intake.field, 'is required');
  if (failure !== undefined) {
    await intake.destination.discard(saved);
    throw asClientError(failure);
  }
  return saved;
}

/** Reads a part to its end, discarding it, so the parser moves on to the next part. */
async function drain(stream: Readable): Promise<void> {
  for await (const _chunk of stream) {
    // discarded
  }
}

/** busboy's own errors carry no status; a body it cannot parse is the client's 400. */
function asClientError(error: unknown): unknown {
  if (error instanceof HttpError) return error;
  const status = (error as { statusCode?: unknown }).statusCode;
  const code = (error as { code?: unknown }).code;
  if (typeof status === 'number' || typeof code === 'string') return error;
  return new BadRequest('The multipart body is malformed');
}

/** Files written into one folder (a job's), as {@link folderDestination} stored them. */
export interface StoredFile {
  /** The sender's file name, for display only. */
  filename: string;
  /** The name it has in the folder (ours, never the sender's). */
  name: string;
}

export interface FolderRules {
  /** The name the `index`-th file gets in the folder. */
  nameOf(filename: string, index: number): string;
  /** Bytes one file may hold, and the 413 when it holds more. */
  maxFileBytes: number;
  fileTooLarge(filename: string): Error;
  /** Bytes all files together may hold, and the 413 when they hold more. */
  maxTotalBytes: number;
  totalTooLarge(): Error;
}

/**
 * A destination that streams each file into `folder` (created private, 0700; files 0600), its
 * bytes counted as they arrive against both caps, never held in memory; on failure the whole
 * folder is removed.
 */
export function folderDestination(folder: string, rules: FolderRules): IntakeDestination<StoredFile> {
  let total = 0;
  return {
    async save(part, index) {
      const name = rules.nameOf(part.filename, index);
      await fs.mkdir(folder, { recursive: true, mode: 0o700 });
      let size = 0;
      const counter = new Transform({
        transform(chunk: Buffer, _encoding, callback) {
          size += chunk.length;
          total += chunk.length;
          if (size > rules.maxFileBytes) callback(rules.fileTooLarge(part.filename));
          else if (total > rules.maxTotalBytes) callback(rules.totalTooLarge());
          else callback(null, chunk);
        },
      });
      await pipeline(part.file, counter, createWriteStream(path.join(folder, name), { flags: 'wx', mode: 0o600 }));
      if (part.file.truncated === true) throw rules.fileTooLarge(part.filename);
      return { filename: part.filename, name };
    },
    async discard() {
      await fs.rm(folder, { recursive: true, force: true });
    },
  };
}
