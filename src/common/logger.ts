/**
 * The logging that library code does: the part of a pino logger it calls (pino's Logger fits), so that a library
 * folder takes the thread's logger without depending on pino, and a test passes silentLog or a recorder.
 */
export interface Logger {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
}

export const silentLog: Logger = { info: () => undefined, warn: () => undefined };
