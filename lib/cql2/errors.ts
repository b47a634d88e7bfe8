import { badRequest, type HttpError } from '#lib/errors.ts';

/** A malformed filter: 400 naming `filter` and where the parser stopped (docs/cql2.md, "Errors"). */
export class Cql2SyntaxError extends Error {
  constructor(
    message: string,
    /** 1-based character position in the filter text (cql2-text), or a JSON path (cql2-json). */
    readonly at: number | string,
  ) {
    super(message);
    this.name = 'Cql2SyntaxError';
  }

  toHttp(lang: string): HttpError {
    const where = typeof this.at === 'number' ? `at character ${this.at}` : `at ${this.at}`;
    return badRequest(`'filter' is not valid ${lang} ${where}: ${this.message}`, {
      position: typeof this.at === 'number' ? this.at : undefined,
      path: typeof this.at === 'string' ? this.at : undefined,
    });
  }
}
