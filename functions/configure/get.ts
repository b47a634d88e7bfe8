import { isAdmin } from '#lib/auth/permissions.ts';
import { mission, version } from '#lib/configure/requests.ts';
import { readLatest, readVersion } from '#lib/configure/store.ts';
import { forbidden, notFound, unauthorized } from '#lib/errors.ts';
import { endpoint } from '#lib/http/endpoint.ts';
import { bareConfig, fullConfig } from '#lib/http/openapi/shapes/configure.ts';
import { rawJson } from '#lib/http/response.ts';

const query = {
  type: 'object',
  required: ['mission'],
  properties: {
    mission,
    version,
    full: { type: 'boolean', default: false },
  },
} as const;

/** The latest config (bare, as MMGIS answers it) or, with `full=true`, the record with its metadata. */
export const handler = endpoint(
  {
    auth: 'public',
    schema: { query },
    responses: {
      200: {
        description: 'The bare configuration; with `full=true` the record with its metadata.',
        schema: { anyOf: [fullConfig, bareConfig] },
      },
    },
  },
  async ({ query, principal, db }) => {
    const { mission } = query;
    if (query.version !== undefined) {
      if (!principal.user) throw unauthorized('Requesting a specific version needs an administrator token.');
      if (!isAdmin(principal)) throw forbidden('Requesting a specific version is for administrators only.');
    }
    const record =
      query.version === undefined
        ? await readLatest(db.sql, mission)
        : await readVersion(db.sql, mission, query.version);
    if (!record) {
      throw notFound(
        query.version === undefined
          ? `Unknown mission '${mission}'.`
          : `Mission '${mission}' has no version ${query.version}.`,
      );
    }
    if (!query.full) return rawJson(200, JSON.stringify(record.config));
    return { status: 'success', ...record };
  },
);
