// The module scripts/apiRoutes.mjs generates at build time: every http route of serverless.yml.
declare module 'api-routes:all' {
  export const routes: import('#lib/http/openapi/document.ts').ApiRoute[];
}
