// The part of pug (3.x) the service uses: compiling a page of the MMGIS front end, from its file
// (lib/web/mmgis/folderBuild.ts) or from the text read from the site bucket (lib/web/mmgis/bucketBuild.ts).
declare module 'pug' {
  namespace pug {
    type compileTemplate = (locals?: Record<string, unknown>) => string;
    function compileFile(path: string, options?: { basedir?: string }): compileTemplate;
    function compile(source: string, options?: { filename?: string; basedir?: string }): compileTemplate;
  }
  export default pug;
}
