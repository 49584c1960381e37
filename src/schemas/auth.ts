import { Type, type Static } from '@sinclair/typebox';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../auth/password.js';

export const LoginBody = Type.Object({
  password: Type.String({ minLength: 1, maxLength: 1024 }),
});
export type LoginBody = Static<typeof LoginBody>;

export const LoginResponse = Type.Object({ message: Type.String(), token: Type.String() });

/** `POST /api/auth/password`: the password in force, and the new one (the rules of `npm run set-password`). */
export const ChangePasswordBody = Type.Object({
  currentPassword: Type.String({ minLength: 1, maxLength: PASSWORD_MAX_LENGTH }),
  newPassword: Type.String({ minLength: PASSWORD_MIN_LENGTH, maxLength: PASSWORD_MAX_LENGTH }),
});
export type ChangePasswordBody = Static<typeof ChangePasswordBody>;
