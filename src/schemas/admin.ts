import { Type } from '@sinclair/typebox';

export const BackupResponse = Type.Object({
  message: Type.String(),
  /** Absolute path of the snapshot folder on the server. */
  path: Type.String(),
  sizeBytes: Type.Integer(),
});
