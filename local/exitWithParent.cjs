'use strict';
// Preloaded into serverless-offline by local/devServer.ts (`node --require`): serverless-offline runs in
// a process group of its own (so that stopping it stops what it started), which a SIGKILL of `npm start`'s
// group does not reach. This ends it, with the S3 stand-in and the functions inside it, once the process
// that started it is gone (its parent becomes another process).
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent) process.kill(-process.pid, 'SIGKILL');
}, 500).unref();
