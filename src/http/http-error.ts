// The one error shape every endpoint answers with:
// {"status":"error","error":"<code>","message":"<what is wrong>"}

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
    /**
     * What the operator needs and the client must not see (a principal, the realm, a config key): the http-front
     * logs it with the request's id; the answer carries `message` only.
     */
    readonly logDetail?: string,
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

interface ErrorBody { status: 'error'; error: string; message: string }

export function errorBody(code: string, message: string): ErrorBody {
  return { status: 'error', error: code, message };
}

/** Status lines uWebSockets.js wants spelled out. */
const REASONS: Record<number, string> = {
  200: 'OK', 201: 'Created', 204: 'No Content', 206: 'Partial Content', 207: 'Multi-Status', 304: 'Not Modified',
  400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 405: 'Method Not Allowed',
  408: 'Request Timeout', 409: 'Conflict', 412: 'Precondition Failed', 413: 'Payload Too Large', 415: 'Unsupported Media Type',
  416: 'Range Not Satisfiable', 417: 'Expectation Failed', 423: 'Locked', 424: 'Failed Dependency', 429: 'Too Many Requests', 431: 'Request Header Fields Too Large',
  500: 'Internal Server Error', 501: 'Not Implemented', 502: 'Bad Gateway', 503: 'Service Unavailable',
  504: 'Gateway Timeout', 507: 'Insufficient Storage',
};

export function statusLine(status: number): string {
  return `${status} ${REASONS[status] ?? 'Status'}`;
}
