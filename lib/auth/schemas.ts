/** Shared JSON Schema pieces for the users and token endpoints. */
export const username = {
  type: 'string',
  minLength: 1,
  maxLength: 64,
  pattern: '^[A-Za-z0-9_.@-]+$',
} as const;
export const password = { type: 'string', minLength: 1, maxLength: 256 } as const;
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
