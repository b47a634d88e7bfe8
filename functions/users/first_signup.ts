import { newCredentials } from '#lib/auth/schemas.ts';
import { firstSignup } from '#lib/auth/users.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { createdUser } from '#lib/http/openapi/shapes/users.ts';
import { respond } from '#lib/http/response.ts';

export const handler = endpoint(
  { auth: 'public', schema: { body: newCredentials }, responses: { 201: { schema: createdUser } } },
  async ({ body, db }) => {
    const user = await firstSignup(db, body.username, body.password);
    return respond(201, {
      status: 'success',
      message: `Created the first administrator '${user.username}'.`,
      body: { username: user.username, role: user.role },
    });
  },
);
