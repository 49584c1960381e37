import { Type, type Static } from '@sinclair/typebox';

/** The shortest password `npm run set-password` and a password change accept (src/auth/password.ts checks it). */
export const PASSWORD_MIN_LENGTH = 8;
/** The longest password anything accepts, the login included. */
export const PASSWORD_MAX_LENGTH = 1024;

export const LoginBody = Type.Object({
  password: Type.String({ minLength: 1, maxLength: PASSWORD_MAX_LENGTH }),
});
export type LoginBody = Static<typeof LoginBody>;

export const LoginResponse = Type.Object({ message: Type.String(), token: Type.String() });

/** `POST /api/auth/password`: the password in force, and the new one (the rules of `npm run set-password`). */
export const ChangePasswordBody = Type.Object({
  currentPassword: Type.String({ minLength: 1, maxLength: PASSWORD_MAX_LENGTH }),
  newPassword: Type.String({ minLength: PASSWORD_MIN_LENGTH, maxLength: PASSWORD_MAX_LENGTH }),
});
export type ChangePasswordBody = Static<typeof ChangePasswordBody>;
