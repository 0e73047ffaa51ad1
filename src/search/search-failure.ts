/**
 * What a failed Elasticsearch call means to an operator, in one line. The client's own messages do not say it for
 * a secured cluster: a refused login is a 401 whose message is empty (HEAD requests) or a multi-line dump, and an
 * untrusted certificate is Node's TLS text with advice about Node's flags. The client keeps only the message of a
 * connection error, not its code, so certificate problems are recognised by OpenSSL's and Node's wording.
 */
import { errors } from '@elastic/elasticsearch';
import { describeError } from '../common/describe-error.js';

/** certificate: the node's TLS certificate is not trusted; credentials: 401; privilege: 403; other: anything else. */
export type SearchFailureKind = 'certificate' | 'credentials' | 'privilege' | 'other';

interface SearchFailure {
  kind: SearchFailureKind;
  message: string;
}

/** OpenSSL's verify errors (unable to verify/get ..., self-signed ..., certificate has expired ...) and Node's name check. */
const CERTIFICATE_PROBLEM = /certificate|self[- ]signed|altnames/i;
/** Node's advice appended to verify errors; about Node's flags, not the operator's config. */
const NODE_CA_ADVICE = /; if the root CA is installed locally, try running Node\.js with --use-system-ca$/;

/**
 * Elasticsearch's reason in an error response body, if it has one (a HEAD request's has none), with what it says
 * about credentials it tried and refused (e.g. "API key: invalid ApiKey value").
 */
function reasonOf(error: errors.ResponseError): string | undefined {
  const body = error.meta.body as { error?: { reason?: unknown; additional_unsuccessful_credentials?: unknown } } | undefined;
  const reasons = [body?.error?.reason, body?.error?.additional_unsuccessful_credentials].filter((part) => typeof part === 'string');
  return reasons.length === 0 ? undefined : reasons.join('; ');
}

export function explainSearchFailure(error: unknown): SearchFailure {
  if (error instanceof errors.ResponseError && error.meta.statusCode === 401) {
    const reason = reasonOf(error);
    return { kind: 'credentials', message: `authentication failed: Elasticsearch did not accept the login of elasticsearch.auth (401${reason === undefined ? '' : `, ${reason}`})` };
  }
  if (error instanceof errors.ResponseError && error.meta.statusCode === 403) {
    const reason = reasonOf(error);
    return { kind: 'privilege', message: `not authorized: the Elasticsearch account lacks a privilege (403${reason === undefined ? '' : `, ${reason}`})` };
  }
  if (error instanceof errors.ConnectionError && CERTIFICATE_PROBLEM.test(error.message)) {
    return {
      kind: 'certificate',
      message: `TLS: the node's certificate is not trusted (${error.message.replace(NODE_CA_ADVICE, '')}); elasticsearch.tls.ca_file must name the CA that signed it`,
    };
  }
  return { kind: 'other', message: describeError(error).error };
}

/**
 * What a log line says about a failure of work that calls Elasticsearch (and perhaps the file server too): the
 * cluster's refusals and certificate problems in plain words, any other error as src/common describes it (an SMB
 * error without the path it names).
 */
export function describeSearchError(error: unknown): { error: string } {
  return { error: explainSearchFailure(error).message };
}
