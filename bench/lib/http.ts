import http from 'node:http';

export interface Target {
  name: string;
  host: string;
  port: number;
  headers: Record<string, string>;
}

export interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  ms: number;
}

/** One GET; `ms` is the time from dispatch to the last byte of the body. */
export function get(target: Target, path: string, agent: http.Agent): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = http.get({ host: target.host, port: target.port, path, headers: target.headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8'), ms: performance.now() - started }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

export function keepAlive(maxSockets = 1): http.Agent {
  return new http.Agent({ keepAlive: true, maxSockets });
}
