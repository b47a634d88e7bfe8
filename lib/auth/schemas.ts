/** Shared JSON Schema pieces for the users and token endpoints. */
export const username = {
  type: 'string',
  minLength: 1,
  maxLength: 64,
  pattern: '^[A-Za-z0-9_.@-]+$',
} as const;
export const password = { type: 'string', minLength: 1, maxLength: 256 } as const;
/** A password being set (first_signup, signup, update): at least 8 characters (docs/auth.md). */
export const newPassword = { type: 'string', minLength: 8, maxLength: 256 } as const;
export const email = { type: 'string', maxLength: 254 } as const;
export const missionName = {
  type: 'string',
  minLength: 1,
  maxLength: 64,
  pattern: '^[A-Za-z0-9 _-]+$',
} as const;

export const credentials = {
  type: 'object',
  required: ['username', 'password'],
  properties: { username, password },
} as const;

/** Credentials of a new account. */
export const newCredentials = {
  type: 'object',
  required: ['username', 'password'],
  properties: { username, password: newPassword },
} as const;
