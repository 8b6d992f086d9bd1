import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { StringDecoder } from 'node:string_decoder';
import ipaddr from 'ipaddr.js';
import { addressClass, classAllowed, type AddressPolicy } from './address-policy.ts';
import { article } from '../../kernel/api-text.ts';

// Webhook URLs are typed in by partners, and the server POSTs to them from inside our network: without care
// that is a server-side request forgery hole (a URL pointing at 127.0.0.1:5432, 10.x admin consoles or the
// cloud metadata service at 169.254.169.254, which hands out credentials). Every outbound request therefore
// goes through this module:
//
// - The host is resolved ONCE and every address it resolves to is checked. The connection is then made to
//   exactly those checked addresses (a `lookup` function that answers from the checked list), so a DNS
//   server that answers "public" to the check and "127.0.0.1" to the connect (DNS rebinding) gains nothing.
//   The request still carries the real host name, so the Host header, SNI and certificate validation are
//   those of the host the partner registered.
// - Redirects are never followed: a 302 to http://169.254.169.254/ would bypass the check; it is just a status.
// - One timer covers DNS, connect, TLS, the request and reading the response, and the response body is
//   capped: a receiver that trickles or streams forever cannot hold a worker.
// - Network conditions never throw; they come back as a classified, partner-safe failure message that can be
//   shown in the delivery log ("certificate has expired"), never a stack.
//
// WEBHOOK_ALLOW_PRIVATE_NETWORKS (allowPrivateNetworks) lifts the address check for development and tests,
// where receivers run on localhost. The cloud metadata addresses stay forbidden even then: no receiver lives
// there, and a production deployment started with the flag by mistake should not leak instance credentials.

export interface OutboundPolicy extends AddressPolicy {
  /** Per-attempt timeout covering DNS, connect, TLS, request and reading the response. */
  timeoutMs: number;
  /** Response body bytes read at most (default 64 KiB); the rest is discarded, the connection closed. */
  maxResponseBytes?: number;
}

export type OutboundFailureKind = 'timeout' | 'tls' | 'network' | 'forbidden_address' | 'other';

export interface OutboundResult {
  /** HTTP status, when a response arrived. */
  status: number | null;
  /** The response body as text (utf-8), at most maxResponseBytes. */
  body: string;
  durationMs: number;
  /**
   * Set when no (complete) HTTP response arrived. message is short, safe to show a partner (no stack), e.g.
   * "connect ECONNREFUSED 127.0.0.1:4999", "certificate has expired", "self-signed certificate",
   * "no answer within 5000 ms". The one case with both a status and a failure: the status line arrived but the
   * body did not finish within the timeout (kind 'timeout'; status and the body read so far are kept).
   */
  failure: { kind: OutboundFailureKind; message: string } | null;
}

/** "HTTP 500: <the body's first 200 characters, whitespace folded>": how a non-2xx answer is stored and shown. */
export function answerSummary(result: OutboundResult): string {
  const excerpt = result.body.replace(/\s+/g, ' ').trim().slice(0, MAX_MESSAGE_LENGTH);
  return `HTTP ${result.status}${excerpt ? `: ${excerpt}` : ''}`;
}

export const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024;
export const USER_AGENT = 'Fieldline-Webhooks/1';

/** Failure messages are stored and shown to partners: keep them to one short line. */
const MAX_MESSAGE_LENGTH = 200;

// ---------------------------------------------------------------------------------------------------------
// URL and host checks shared by urlRefusal and postJson

interface Target {
  url: URL;
  /** Host name as the request carries it (Host header, SNI): brackets removed from IPv6 literals. */
  host: string;
  port: number;
}

/** The checks that need no DNS: a refusal message, or the parsed target. */
function parseTarget(raw: string): Target | string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'the URL is not a valid absolute URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `the URL must use http: or https:, not ${url.protocol}`;
  // Credentials in a webhook URL end up in logs and the delivery list; signing is what authenticates us.
  if (url.username || url.password) return 'the URL must not contain a user name or password';
  if (!url.hostname) return 'the URL has no host';
  // WHATWG URL has already normalised the exotic IPv4 spellings (0x7f.1, 2130706433) to dotted decimal, so
  // the literal we check is the one we connect to.
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
  return { url, host, port };
}

type Resolution = { addresses: LookupAddress[] } | { failure: { kind: OutboundFailureKind; message: string } };

/**
 * Resolves the host once and checks every address. All of them, not just the first: the connect may use any
 * (the OS's order, happy eyeballs), and a host with one public and one private address is an attack, not a
 * misconfiguration.
 */
async function resolveChecked(target: Target, policy: OutboundPolicy, deadline: Promise<never> | null): Promise<Resolution> {
  let addresses: LookupAddress[];
  const family = isIP(target.host);
  if (family) {
    addresses = [{ address: target.host, family }];
  } else {
    try {
      const lookup = new Promise<LookupAddress[]>((resolve, reject) =>
        dnsLookup(target.host, { all: true, order: 'verbatim' }, (error, found) => (error ? reject(error) : resolve(found))),
      );
      addresses = await (deadline ? Promise.race([lookup, deadline]) : lookup);
    } catch (error) {
      return { failure: classifyError(error, target.url.protocol === 'https:') };
    }
    if (addresses.length === 0) return { failure: { kind: 'network', message: `getaddrinfo ENOTFOUND ${target.host}` } };
  }
  for (const { address } of addresses) {
    const cls = addressClass(address);
    if (!classAllowed(cls, policy)) {
      const subject = family ? 'the host is' : 'the host resolves to';
      // What would allow it, where a setting would: a developer registering http://localhost:9999 learns the switch.
      const allowedBy = classAllowed(cls, { allowPrivateNetworks: true, allowLoopback: true })
        ? `; a server allows such addresses only with WEBHOOK_ALLOW_PRIVATE_NETWORKS=true${cls === 'loopback' ? ' (loopback is allowed by default in development, NODE_ENV unset or development)' : ' (development)'}`
        : '';
      return { failure: { kind: 'forbidden_address', message: `${subject} ${article(cls)} ${cls} address (${describeAddress(address)})${allowedBy}` } };
    }
  }
  return { addresses };
}

/** "::ffff:7f00:1" alone does not say loopback to a reader: name the IPv4 address it was judged as. */
function describeAddress(address: string): string {
  const ip = ipaddr.parse(address);
  return ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).isIPv4MappedAddress() ? `${address}, i.e. ${(ip as ipaddr.IPv6).toIPv4Address()}` : address;
}

/**
 * Why a URL may not be registered: null when it may. Checks scheme (http: or https: only), no credentials in
 * the URL, host present, and that EVERY address the host resolves to (dns.lookup all:true, or the literal IP)
 * is a public unicast address unless allowPrivateNetworks. A host that does not resolve is refused too (with
 * the resolver's reason), within policy.timeoutMs.
 */
export async function urlRefusal(url: string, policy: OutboundPolicy): Promise<string | null> {
  const target = parseTarget(url);
  if (typeof target === 'string') return target;
  const timer = deadlineAfter(policy.timeoutMs, `the host name did not resolve within ${policy.timeoutMs} ms`);
  try {
    const resolution = await resolveChecked(target, policy, timer.promise);
    if ('addresses' in resolution) return null;
    const { kind, message } = resolution.failure;
    return kind === 'network' ? `the host name does not resolve (${message})` : message;
  } finally {
    timer.cancel();
  }
}

// ---------------------------------------------------------------------------------------------------------
// The request

class DeadlineError extends Error {
  readonly code = 'FL_DEADLINE';
}

function deadlineAfter(ms: number, message: string): { promise: Promise<never>; cancel(): void } {
  let timer: NodeJS.Timeout | undefined;
  const promise = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DeadlineError(message)), ms);
  });
  // A deadline nobody awaits any more (the lookup won the race) must not surface as an unhandled rejection.
  promise.catch(() => {});
  return { promise, cancel: () => clearTimeout(timer) };
}

/**
 * POSTs a JSON body to a partner URL under the SSRF policy above and reports what happened. Never throws for
 * network conditions; the caller decides what a status or failure means (verification, delivery, retry).
 * Content-Type, Content-Length and User-Agent are ours (a caller's versions are replaced), as are Host and
 * Connection; the caller adds its own headers (signatures, ids).
 */
export async function postJson(url: string, headers: Record<string, string>, body: string, policy: OutboundPolicy): Promise<OutboundResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const fail = (kind: OutboundFailureKind, message: string): OutboundResult => ({
    status: null,
    body: '',
    durationMs: elapsed(),
    failure: { kind, message: shorten(message) },
  });

  try {
    const target = parseTarget(url);
    if (typeof target === 'string') return fail('other', target);

    const timeoutMessage = `no answer within ${policy.timeoutMs} ms`;
    const deadline = deadlineAfter(policy.timeoutMs, timeoutMessage);
    try {
      const resolution = await resolveChecked(target, policy, deadline.promise);
      if ('failure' in resolution) return fail(resolution.failure.kind, resolution.failure.message);
      const remaining = policy.timeoutMs - (performance.now() - started);
      if (remaining <= 0) return fail('timeout', timeoutMessage);
      return await send(target, resolution.addresses, headers, body, policy, remaining, timeoutMessage, elapsed);
    } finally {
      deadline.cancel();
    }
  } catch (error) {
    // Only programming errors reach here (send() reports everything it sees); still an answer, not a throw.
    return fail('other', error instanceof Error ? error.message : String(error));
  }
}

function send(
  target: Target,
  addresses: LookupAddress[],
  callerHeaders: Record<string, string>,
  body: string,
  policy: OutboundPolicy,
  timeoutMs: number,
  timeoutMessage: string,
  elapsed: () => number,
): Promise<OutboundResult> {
  const isHttps = target.url.protocol === 'https:';
  const maxBytes = policy.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const payload = Buffer.from(body, 'utf8');

  // Header names are case-insensitive: drop a caller's spelling of the ones we own, or both would be sent.
  const owned = new Set(['content-type', 'content-length', 'user-agent', 'host', 'connection', 'transfer-encoding']);
  const requestHeaders: Record<string, string> = {};
  for (const [name, value] of Object.entries(callerHeaders)) if (!owned.has(name.toLowerCase())) requestHeaders[name] = value;
  requestHeaders['Content-Type'] = 'application/json';
  requestHeaders['Content-Length'] = String(payload.length);
  requestHeaders['User-Agent'] = USER_AGENT;

  // The pin: whatever net asks (one address, or all of them for happy eyeballs), it gets the checked ones.
  // For an IP literal net does not call lookup at all, and the literal is what was checked.
  const pinnedLookup = ((_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, addresses);
    else callback(null, addresses[0].address, addresses[0].family);
  }) as unknown as LookupFunction;

  return new Promise<OutboundResult>((resolve) => {
    let settled = false;
    let status: number | null = null;
    const chunks: string[] = [];
    const decoder = new StringDecoder('utf8');
    let received = 0;

    const finish = (failure: OutboundResult['failure']) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      // A one-off agent (agent: false) means destroying the request closes the socket: nothing is pooled, and
      // an unread remainder of the body is dropped with it.
      request.destroy();
      // decoder.end() is not called: a multi-byte character cut by the cap is dropped rather than turned into U+FFFD.
      resolve({ status, body: chunks.join(''), durationMs: elapsed(), failure: failure && { kind: failure.kind, message: shorten(failure.message) } });
    };

    const options: https.RequestOptions = {
      method: 'POST',
      protocol: target.url.protocol,
      host: target.host,
      port: target.port,
      path: `${target.url.pathname}${target.url.search}`,
      headers: requestHeaders,
      agent: false,
      lookup: pinnedLookup,
      // SNI and certificate validation use the registered host name; rejectUnauthorized is the default, stated
      // because it must not be turned off here.
      ...(isHttps ? { rejectUnauthorized: true, ...(isIP(target.host) ? {} : { servername: target.host }) } : {}),
    };

    const request = (isHttps ? https : http).request(options, (response) => {
      status = response.statusCode ?? null;
      response.on('data', (chunk: Buffer) => {
        if (settled) return;
        const room = maxBytes - received;
        const take = chunk.length > room ? chunk.subarray(0, room) : chunk;
        received += take.length;
        chunks.push(decoder.write(take));
        if (received >= maxBytes) finish(null);
      });
      response.on('end', () => finish(null));
      // The status line arrived; a connection lost mid-body still leaves an answer (status + what was read).
      response.on('error', () => finish(null));
      response.on('close', () => finish(null));
    });

    const timer = setTimeout(() => finish({ kind: 'timeout', message: timeoutMessage }), timeoutMs);
    // Once finished, the destroyed request may still emit 'error' (socket hang up): it is listened to and ignored.
    request.on('error', (error) => finish(classifyError(error, isHttps)));
    request.end(payload);
  });
}

// ---------------------------------------------------------------------------------------------------------
// Error classification

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EHOSTDOWN',
  'ENETDOWN',
  'EPIPE',
  'ECONNABORTED',
  'EADDRNOTAVAIL',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EAI_FAIL',
  'EAI_NODATA',
  'EAI_NONAME',
  'ENODATA',
]);

/** OpenSSL's certificate verification results, as Node reports them in error.code. */
const TLS_CODES = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_REVOKED',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'CERT_SIGNATURE_FAILURE',
  'CERT_CHAIN_TOO_LONG',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_DECRYPT_CERT_SIGNATURE',
  'UNABLE_TO_DECODE_ISSUER_PUBLIC_KEY',
  'INVALID_CA',
  'INVALID_PURPOSE',
  'HOSTNAME_MISMATCH',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'ERR_TLS_HANDSHAKE_TIMEOUT',
  'ERR_TLS_INVALID_PROTOCOL_VERSION',
  'ERR_TLS_DH_PARAM_SIZE',
]);

function classifyError(error: unknown, isHttps: boolean): { kind: OutboundFailureKind; message: string } {
  if (error instanceof DeadlineError) return { kind: 'timeout', message: error.message };
  // With several addresses, net's happy eyeballs fails with an AggregateError of one error per address; its
  // own message is empty.
  const errors = error instanceof AggregateError && error.errors.length ? (error.errors as unknown[]) : [error];
  const first = errors[0] as NodeJS.ErrnoException | undefined;
  const code = typeof first?.code === 'string' ? first.code : '';
  const message = [...new Set(errors.map((e) => (e instanceof Error ? e.message : String(e))).filter(Boolean))].join('; ') || code || 'request failed';
  if (TLS_CODES.has(code) || code.startsWith('ERR_SSL_') || code.startsWith('ERR_TLS_') || /CERT/.test(code)) return { kind: 'tls', message };
  // EPROTO on an https request is a failed handshake (an http server on the port, a TLS version mismatch).
  if (code === 'EPROTO' && isHttps) return { kind: 'tls', message };
  if (NETWORK_CODES.has(code)) return { kind: 'network', message };
  if (code === 'ETIMEDOUT') return { kind: 'timeout', message };
  return { kind: 'other', message };
}

function shorten(message: string): string {
  // Node appends advice for its own operator to certificate errors ("...; if the root CA is installed locally,
  // try running Node.js with --use-system-ca"): not the partner's business.
  let line = message.split('\n')[0].replace(/; if the root CA is installed locally.*$/, '').trim();
  // OpenSSL's raw errors carry addresses and source paths ("write EPROTO 40..:error:0A00010B:SSL routines:
  // tls_validate_record_header:wrong version number:../deps/openssl/..."): its reason is the useful part.
  const openssl = /error:[0-9A-Fa-f]+:SSL routines:[^:]*:([^:]+)/.exec(line);
  if (openssl) line = `TLS handshake failed: ${openssl[1].trim()}`;
  return line.length > MAX_MESSAGE_LENGTH ? `${line.slice(0, MAX_MESSAGE_LENGTH - 1)}…` : line;
}
