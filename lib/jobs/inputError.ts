/**
 * A job's failure that its input caused, not the service: a file over the upload limit, a feature that is
 * not valid JSON. The job records `message` as its error and `detail` (structured: where in the input,
 * such as a feature's index and byte offset) as its result, and logs no error. A job has no HTTP answer,
 * so it throws this where a request would throw an `HttpError` with a 4xx status.
 */
export class JobInputError extends Error {
  constructor(
    message: string,
    public readonly detail: { featureIndex?: number; byteOffset?: number } = {},
  ) {
    super(message);
    this.name = 'JobInputError';
  }
}
