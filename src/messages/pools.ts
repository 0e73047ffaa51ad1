// Tasks the supervisor's worker pools run, declared once for both ends.
// Each pool's task module handles exactly the union declared for it here.

export type SmbReaderTask = { type: 'ping' };
export type SmbReaderResult = { type: 'pong'; threadId: number };

export type IndexerTask = { type: 'ping' };
export type IndexerResult = { type: 'pong'; threadId: number };
