// Process entry of the `fieldline` command (bin/fieldline.mjs runs it under Node 24 with tsx; `npm run cli -- ...`).
// Libraries must not write to stdout: with --json it carries exactly one JSON object. Anything they log with
// console.log/info/debug goes to stderr instead.
const toStderr = (...args: unknown[]) => console.error(...args);
console.log = toStderr;
console.info = toStderr;
console.debug = toStderr;

const { runCli } = await import('./run.ts');
const code = await runCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr });
// Database drivers keep idle timers for seconds after close; exit as soon as the output is flushed.
process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
