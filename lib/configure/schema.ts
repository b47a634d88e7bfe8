/**
 * A JSON Schema (draft-07) of the parts of a mission configuration this service relies on: `msv` with its
 * view, `tools`, and the layer tree with the fields each layer type needs. Unknown keys are allowed
 * everywhere (real configs carry many). It is published for clients and editors; the service itself
 * validates with `validateConfig` (validate.ts), which checks the same rules plus those a schema cannot
 * express (unique uuids across the tree, `minZoom` ≤ `maxNativeZoom`, geodataset existence).
 */
const numeric = {
  anyOf: [
    { type: 'number' },
    { type: 'string', pattern: '^\\s*-?(\\d+(\\.\\d*)?|\\.\\d+)([eE][+-]?\\d+)?\\s*$' },
  ],
};
const nonEmpty = { type: 'string', pattern: '\\S' };
const zoom = {
  anyOf: [
    { type: 'number', minimum: 0 },
    { type: 'string', pattern: '^\\s*(\\d+(\\.\\d*)?|\\.\\d+)\\s*$' },
    { type: 'null' },
    { const: '' },
  ],
};

const needs = (type: string, required: Record<string, unknown>) => ({
  if: { properties: { type: { const: type } }, required: ['type'] },
  // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then keyword
  then: { required: Object.keys(required), properties: required },
});

export const configSchema = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  $id: 'mmgis-serverless/mission-config',
  title: 'Mission configuration',
  type: 'object',
  required: ['msv', 'layers', 'tools'],
  properties: {
    msv: {
      type: 'object',
      properties: {
        mission: { type: 'string' },
        view: {
          type: 'array',
          minItems: 3,
          items: [numeric, numeric, numeric],
          description: '[latitude, longitude, zoom]',
        },
      },
    },
    tools: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' } } } },
    layers: { type: 'array', items: { $ref: '#/definitions/layer' } },
  },
  definitions: {
    layer: {
      type: 'object',
      required: ['name', 'type'],
      properties: {
        name: nonEmpty,
        type: { enum: ['header', 'tile', 'vectortile', 'data', 'query', 'vector', 'model'] },
        // Any value: a UUID string is kept; anything else (absent, null, '', the configure app's numeric
        // placeholder for a new layer, other text) is replaced with a new UUID on save.
        uuid: {
          description:
            'A UUID string; any other value is replaced with a new UUID when the configuration is saved.',
        },
        minZoom: zoom,
        maxNativeZoom: zoom,
        maxZoom: zoom,
      },
      allOf: [
        needs('tile', { url: nonEmpty }),
        needs('vectortile', { url: nonEmpty }),
        needs('vector', { url: nonEmpty }),
        needs('model', { url: nonEmpty }),
        needs('data', { demtileurl: nonEmpty }),
        needs('query', {
          query: { type: 'object', required: ['endpoint'], properties: { endpoint: nonEmpty } },
        }),
        {
          if: { properties: { type: { const: 'header' } }, required: ['type'] },
          // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then keyword
          then: { properties: { sublayers: { type: 'array', items: { $ref: '#/definitions/layer' } } } },
          else: { properties: { sublayers: { type: 'array', maxItems: 0 } } },
        },
      ],
    },
  },
} as const;
