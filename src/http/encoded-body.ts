import { promisify } from 'node:util';
import zlib from 'node:zlib';
import type { Request, Response } from 'express';

// A response body that never changes while the process runs (a page asset, the OpenAPI document), kept in each
// encoding a client asks for (br, gzip or none), each made once on first use. Compressing per request would let
// anonymous clients spend the server's CPU: GraphiQL's 9 MB cost about 250 ms to compress.

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);

type Encoding = 'br' | 'gzip' | 'identity';

export class EncodedBody {
  private readonly encoded = new Map<Encoding, Promise<Buffer>>();
  private raw: Promise<Buffer> | null = null;

  /** `load` gives the uncompressed bytes; it is called once (again only after it failed). */
  constructor(private readonly load: () => Promise<Buffer>) {}

  /** Sends the body in the best encoding the request accepts, with Content-Encoding, Content-Length and Vary. */
  async send(req: Request, res: Response, contentType: string): Promise<void> {
    const encoding = (req.acceptsEncodings('br', 'gzip', 'identity') || 'identity') as Encoding;
    const body = await this.bytes(encoding);
    res.setHeader('Content-Type', contentType);
    res.setHeader('Vary', 'Accept-Encoding');
    if (encoding !== 'identity') res.setHeader('Content-Encoding', encoding);
    res.setHeader('Content-Length', body.length);
    res.end(req.method === 'HEAD' ? undefined : body);
  }

  private bytes(encoding: Encoding): Promise<Buffer> {
    let found = this.encoded.get(encoding);
    if (!found) {
      found = this.make(encoding);
      // A failure (an unreadable file) is not kept: the next request tries again.
      found.catch(() => this.encoded.delete(encoding));
      this.encoded.set(encoding, found);
    }
    return found;
  }

  private async make(encoding: Encoding): Promise<Buffer> {
    this.raw ??= this.load();
    this.raw.catch(() => (this.raw = null));
    const raw = await this.raw;
    if (encoding === 'br') return brotli(raw, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 9, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: raw.length } });
    if (encoding === 'gzip') return gzip(raw, { level: 9 });
    return raw;
  }
}
