import { Type, type Static } from '@sinclair/typebox';

export const LoginBody = Type.Object({
  password: Type.String({ minLength: 1, maxLength: 1024 }),
});
export type LoginBody = Static<typeof LoginBody>;

export const LoginResponse = Type.Object({ message: Type.String(), token: Type.String() });
