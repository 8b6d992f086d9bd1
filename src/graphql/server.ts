import type { Express } from 'express';
import type http from 'node:http';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { Domain } from '../domain.ts';

// Placeholder until the GraphQL adapter lands.
export function mountGraphql(_app: Express, _domain: Domain, _config: Config, _logger: Logger) {
  return { attach(_server: http.Server) {}, async close() {} };
}
