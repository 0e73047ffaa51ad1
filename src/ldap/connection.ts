import { readFileSync } from 'node:fs';
import type { ConnectionOptions } from 'node:tls';
import { Client, InvalidCredentialsError } from 'ldapts';

/** The `ldap` block of config.yml that concerns the connection (durations in ms). */
export interface LdapConnectionOptions {
  /** `ldaps://host[:port]`; plain `ldap://` is refused because passwords are sent in simple binds. */
  readonly url: string;
  readonly tls?: {
    /** PEM file of the CA that issued the directory's certificate. */
    readonly caFile?: string | undefined;
    /** Name the certificate is issued to, when `url` uses an IP address or another name. */
    readonly serverName?: string | undefined;
    readonly rejectUnauthorized?: boolean | undefined;
  } | undefined;
  /** Limit for connecting and for each operation. */
  readonly timeoutMs: number;
}

export class LdapConfigError extends Error {
  override readonly name = 'LdapConfigError';
}

/** Creates a fresh, unconnected client per call; ldapts connects on the first operation. */
export type LdapClientFactory = () => Client;

/**
 * Checks the options and reads the CA file once, so that configuration mistakes show up at
 * start-up with a clear message instead of on the first login.
 */
export function createLdapClientFactory(options: LdapConnectionOptions): LdapClientFactory {
  let url: URL;
  try {
    url = new URL(options.url);
  } catch {
    throw new LdapConfigError(`ldap.url '${options.url}' is not a URL`);
  }
  if (url.protocol !== 'ldaps:') {
    throw new LdapConfigError(`ldap.url must use ldaps:// (simple binds send passwords), got '${options.url}'`);
  }
  if (!Number.isFinite(options.timeoutMs) || options.timeoutMs <= 0) {
    throw new LdapConfigError(`ldap.timeout must be a positive duration, got ${options.timeoutMs} ms`);
  }
  const tlsOptions: ConnectionOptions = {
    rejectUnauthorized: options.tls?.rejectUnauthorized ?? true,
    minVersion: 'TLSv1.2',
  };
  if (options.tls?.caFile !== undefined) {
    try {
      tlsOptions.ca = readFileSync(options.tls.caFile);
    } catch (err) {
      throw new LdapConfigError(`cannot read ldap.tls.ca_file ${options.tls.caFile}: ${(err as Error).message}`);
    }
  }
  if (options.tls?.serverName !== undefined) tlsOptions.servername = options.tls.serverName;

  return () =>
    new Client({
      url: options.url,
      timeout: options.timeoutMs,
      connectTimeout: options.timeoutMs,
      tlsOptions,
    });
}

/** Runs `work` on a new connection and always closes it afterwards. */
export async function withLdapClient<T>(factory: LdapClientFactory, work: (client: Client) => Promise<T>): Promise<T> {
  const client = factory();
  try {
    return await work(client);
  } finally {
    await client.unbind().catch(() => undefined);
  }
}

type DirectoryErrorKind = 'invalid_credentials' | 'directory_unavailable';

/**
 * A failed directory operation, reduced to what a caller answers: wrong credentials (401) or
 * a directory that cannot answer properly — down, unreachable, TLS failure, timeout, or an
 * unexpected LDAP result (503). Messages never contain passwords.
 */
export class DirectoryError extends Error {
  override readonly name = 'DirectoryError';
  constructor(readonly kind: DirectoryErrorKind, message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** Whether the directory refused the credentials (as opposed to not being able to tell). */
export function isInvalidCredentials(err: unknown): boolean {
  return err instanceof DirectoryError && err.kind === 'invalid_credentials';
}

/** Maps an error thrown by ldapts (or the network below it) to a DirectoryError. */
export function toDirectoryError(err: unknown, doing: string): DirectoryError {
  if (err instanceof DirectoryError) return err;
  if (err instanceof InvalidCredentialsError) {
    return new DirectoryError('invalid_credentials', 'invalid user name or password', { cause: err });
  }
  const detail = err instanceof Error ? ((err as NodeJS.ErrnoException).code ?? err.message) : String(err);
  return new DirectoryError('directory_unavailable', `directory service unavailable while ${doing}: ${detail}`, {
    cause: err,
  });
}
