import pino, { type Logger } from 'pino';

/** Structured JSON logs. Authorization headers, tokens and bodies are never logged. */
export function createLogger(level: string): Logger {
  return pino({ level, base: undefined, timestamp: pino.stdTimeFunctions.isoTime });
}

/**
 * What an error says, for a log line: an Error's message, or the message of a thrown object that is not an Error
 * (pg-boss emits such objects; String() of one is "[object Object]"), or its JSON, cut to 300 characters.
 */
export function errorText(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (error && typeof error === 'object') {
    const message = (error as { message?: unknown }).message;
    if (typeof message === 'string') return message;
    try {
      return JSON.stringify(error).slice(0, 300);
    } catch {
      return Object.prototype.toString.call(error);
    }
  }
  return String(error);
}
