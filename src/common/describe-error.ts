import { SmbError, smbErrorSummary } from '../smb/errors.js';
import { explainSearchFailure } from './search-failure.js';

/**
 * What a log line says about a failed Elasticsearch call (a refused login, an untrusted certificate in plain words),
 * or about a failed SMB call (without the path it names: logs carry none).
 */
export function describeError(error: unknown): { error: string } {
  return { error: error instanceof SmbError ? smbErrorSummary(error) : explainSearchFailure(error).message };
}
