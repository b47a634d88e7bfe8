/**
 * String formats checked in more than one layer, defined once. Endpoint schemas name them as JSON Schema
 * `format`s (lib/http/validation.ts registers these definitions); domain code that validates a document
 * itself (a mission config's layer uuids) tests the same regex.
 */

/**
 * `format: 'uuid'`: the 8-4-4-4-12 hex form (any case) PostgreSQL's `uuid` reads. ajv-formats' own `uuid`
 * also admits a `urn:uuid:` prefix, which the database refuses, so the service registers this one.
 */
export const UUID_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';
export const UUID = new RegExp(UUID_PATTERN);
