import { describe, expect, it } from 'vitest';
import { badRequest } from '#lib/errors.ts';
import { RefusedByDatabase } from '#lib/geodatasets/write/insertFeatures.ts';
import { JobInputError } from '#lib/jobs/inputError.ts';
import type { GeojsonFileReader } from '#lib/uploads/geojsonFileReader.ts';
import { describeFailure } from '#lib/uploads/ingest.ts';

/** A reader whose feature `i` starts at byte `100 * i`. */
const reader = { byteOffsetOf: (i: number) => 100 * i } as unknown as GeojsonFileReader;

describe('describeFailure (what an upload job records)', () => {
  it('keeps the reader’s own position and message', () => {
    const e = new JobInputError('Feature 3 (at byte 42): not valid JSON (x).', {
      featureIndex: 3,
      byteOffset: 42,
    });
    expect(describeFailure(e, reader)).toEqual({ message: e.message, featureIndex: 3, byteOffset: 42 });
  });

  it('adds the byte offset of the feature a validation error names', () => {
    const e = badRequest('Feature 2: geometry is missing.', { featureIndex: 2 });
    expect(describeFailure(e, reader)).toEqual({
      message: 'Feature 2: geometry is missing (feature 2 starts at byte 200 of the file).',
      featureIndex: 2,
      byteOffset: 200,
    });
  });

  it('takes the feature of a database refusal from the error, not its message', () => {
    const e = new RefusedByDatabase('Features 5-9: the database refused them (bad).', 5);
    expect(describeFailure(e, reader)).toMatchObject({ featureIndex: 5, byteOffset: 500 });
    expect(describeFailure(e, undefined)).toEqual({
      message: e.message,
      featureIndex: 5,
      byteOffset: undefined,
    });
  });

  it('names no position for an error that carries none', () => {
    const e = new Error('Feature 7 of something else');
    expect(describeFailure(e, reader)).toEqual({
      message: e.message,
      featureIndex: undefined,
      byteOffset: undefined,
    });
    expect(
      describeFailure(new JobInputError('The file is larger than the upload limit of 5 bytes.'), reader),
    ).toEqual({
      message: 'The file is larger than the upload limit of 5 bytes.',
      featureIndex: undefined,
      byteOffset: undefined,
    });
  });
});
