// The part of pug (3.x) the service uses: compiling a page of the MMGIS front end (lib/web/mmgis/renderPage.ts).
declare module 'pug' {
  namespace pug {
    type compileTemplate = (locals?: Record<string, unknown>) => string;
    function compileFile(path: string, options?: { basedir?: string }): compileTemplate;
  }
  export default pug;
}
