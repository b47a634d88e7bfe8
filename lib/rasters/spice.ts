/**
 * `utils/ll2aerll` and `utils/chronice` (docs/utils.md): the established server answered them with
 * SPICE (NAIF's toolkit, through Python) and the kernels of the mission's bodies and spacecraft, kept
 * beside the server. This service has neither, so both answer the established server's failure shape,
 * `{error: true, message}` (its map client checks `error`), with `status: 'failure'`, and HTTP 501.
 */
export function spiceUnavailable(what: string) {
  return {
    status: 'failure' as const,
    error: true as const,
    message: `${what} needs SPICE kernels, which this service does not have: it is not available here.`,
  };
}
