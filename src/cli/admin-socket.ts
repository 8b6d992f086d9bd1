import { chmodSync, rmSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { z } from 'zod';

// The `fieldline` command while the server holds the embedded database (docs/cli.md, Which database): the
// embedded database can be opened by one process only, so the command hands its whole invocation to the server
// that holds it, over a Unix socket in the data directory, and prints what the server ran. The server runs it as
// the command would (src/cli/run.ts runCli) on its own open database, with its own admin service (a key revoked
// this way is refused at once, not after the key cache's lifetime). The socket is the file `fieldline-admin.sock`
// beside the lock file, readable and writable by its owner only (0600): whoever may open the data directory's
// files may administer it anyway; nobody else can connect. One JSON line each way.

export const ADMIN_SOCKET = 'fieldline-admin.sock';

/** The most bytes of a request line: an argv is small. */
const MAX_REQUEST_BYTES = 64 * 1024;

const request = z.object({ argv: z.array(z.string().max(8192)).max(256) }).strict();
const response = z.object({ code: z.number().int(), stdout: z.string(), stderr: z.string() });

export type AdminRun = z.infer<typeof response>;

/** The socket's path: an absolute path (Unix sockets take at most about 100 bytes of path; a longer one is not served). */
export function adminSocketPath(dataDir: string): string {
  return path.resolve(dataDir, ADMIN_SOCKET);
}

/** Whether a socket path fits the platform's limit (108 bytes on Linux, 104 on macOS, the terminating NUL included). */
function fits(file: string): boolean {
  return Buffer.byteLength(file) < 104;
}

/**
 * Serves `fieldline` invocations on the data directory's socket until closed. The server holds the data-dir lock,
 * so a socket file already there is a crashed server's and is replaced. Resolves to null when the path is too long
 * for a Unix socket (the command then refuses as before: stop the server).
 */
export async function serveAdminSocket(dataDir: string, run: (argv: string[]) => Promise<AdminRun>, onError: (error: unknown) => void): Promise<{ close(): Promise<void> } | null> {
  const file = adminSocketPath(dataDir);
  if (process.platform === 'win32' || !fits(file)) return null;
  rmSync(file, { force: true });
  const server = net.createServer((socket) => {
    let received = '';
    socket.setEncoding('utf8');
    socket.on('error', () => socket.destroy());
    socket.on('data', (chunk: string) => {
      received += chunk;
      if (received.length > MAX_REQUEST_BYTES) return void socket.end(`${JSON.stringify({ code: 2, stdout: '', stderr: 'fieldline: the request is too large\n' })}\n`);
      const end = received.indexOf('\n');
      if (end < 0) return;
      socket.removeAllListeners('data');
      const parsed = request.safeParse(safeJson(received.slice(0, end)));
      if (!parsed.success) return void socket.end(`${JSON.stringify({ code: 2, stdout: '', stderr: 'fieldline: not a fieldline request\n' })}\n`);
      run(parsed.data.argv).then(
        (result) => socket.end(`${JSON.stringify(result)}\n`),
        (error: unknown) => {
          onError(error);
          socket.end(`${JSON.stringify({ code: 1, stdout: '', stderr: 'fieldline: the server could not run the command\n' })}\n`);
        },
      );
    });
  });
  // Created with no rights for others (umask), then made 0600 explicitly: no moment where another user could connect.
  const umask = process.umask(0o177);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(file, () => resolve());
    });
  } finally {
    process.umask(umask);
  }
  chmodSync(file, 0o600);
  server.on('error', onError);
  return {
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        rmSync(file, { force: true });
      }),
  };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/**
 * Runs an invocation on the server that holds the data directory, through its socket; null when no server answers
 * there (no socket, or nothing listening: the caller refuses as before).
 */
export function runOnServer(dataDir: string, argv: readonly string[]): Promise<AdminRun | null> {
  const file = adminSocketPath(dataDir);
  if (process.platform === 'win32' || !fits(file)) return Promise.resolve(null);
  return new Promise((resolve) => {
    let received = '';
    let connected = false;
    const socket = net.connect(file, () => {
      connected = true;
      socket.write(`${JSON.stringify({ argv })}\n`);
    });
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (received += chunk));
    socket.on('error', () =>
      // Before the request was sent nothing ran; after it, the server may have run it: never say it did not.
      resolve(connected ? { code: 1, stdout: '', stderr: 'fieldline: the connection to the server was lost before its answer; the command may have run\n' } : null),
    );
    socket.on('close', () => {
      if (!connected) return resolve(null);
      const parsed = response.safeParse(safeJson(received.trim()));
      resolve(parsed.success ? parsed.data : { code: 1, stdout: '', stderr: 'fieldline: the server closed the connection without an answer\n' });
    });
  });
}
