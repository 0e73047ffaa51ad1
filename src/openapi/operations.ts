// OpenAPI paths and schemas of operations: health, readiness, metrics and the document itself
// (actors/http-front/routes/health.ts, readyz.ts, metrics.ts, openapi.ts).

import { ok, operation, ref } from './shared.js';

export const operationsPaths = {
  '/healthz': {
    get: operation({
      operationId: 'getHealth',
      summary: 'Liveness: the state of every actor and pool',
      tags: ['Operations'],
      responses: {
        '200': ok('Every actor and pool is running', ref('HealthReport')),
        '503': ok('An actor or pool is not running', ref('HealthReport')),
      },
    }),
  },
  '/readyz': {
    get: operation({
      operationId: 'getReadiness',
      summary: 'Readiness: Elasticsearch (when enabled), the directory (LDAPS bind as the indexer account) and each SMB backend',
      description: 'Results are reused for 5 seconds, so that frequent probes do not load the directory or the file servers. '
        + 'Answered without authentication, so a check is a state only: the reason of a change is in the log, and `fileproxy doctor` prints the checks with their fixes.',
      tags: ['Operations'],
      responses: {
        '200': ok('Every needed dependency answers', ref('ReadinessReport')),
        '503': ok('A needed dependency is down', ref('ReadinessReport')),
      },
    }),
  },
  '/metrics': {
    get: operation({
      operationId: 'getMetrics',
      summary: 'Prometheus metrics of every thread of the service, merged',
      tags: ['Operations'],
      responses: {
        '200': { description: 'Prometheus text exposition format 0.0.4', content: { 'text/plain': { schema: { type: 'string' } } } },
      },
    }),
  },
  '/openapi.json': {
    get: operation({
      operationId: 'getOpenApi',
      summary: 'This document',
      tags: ['Operations'],
      responses: { '200': ok('The OpenAPI 3.1 document', {
        type: 'object',
        required: ['openapi', 'info', 'paths'],
        properties: { openapi: { type: 'string', pattern: '^3\\.1\\.' }, info: { type: 'object' }, paths: { type: 'object' } },
      }) },
    }),
  },
};

export const operationsSchemas = {
  HealthReport: {
    type: 'object', required: ['status', 'actors'], additionalProperties: false,
    properties: {
      status: { enum: ['ok', 'degraded'] },
      actors: { type: 'object', additionalProperties: ref('ActorHealth') },
    },
  },
  ActorHealth: {
    type: 'object', required: ['state', 'kind', 'restarts'], additionalProperties: false,
    properties: {
      state: { enum: ['starting', 'running', 'restarting', 'stopping', 'stopped', 'failed'] },
      kind: { enum: ['actor', 'pool'] },
      restarts: { type: 'integer', minimum: 0 },
      uptimeSeconds: { type: 'integer', minimum: 0 },
      lastError: { type: 'string' },
      details: { type: 'object', description: 'What the actor reports about itself (queue sizes, counts)' },
    },
  },
  ReadinessReport: {
    type: 'object', required: ['status', 'checks'], additionalProperties: false,
    properties: {
      status: { enum: ['ready', 'not_ready'] },
      checks: {
        type: 'object',
        description: 'By dependency: elasticsearch, ldap, smb (every SMB backend together)',
        additionalProperties: ref('DependencyCheck'),
      },
    },
  },
  DependencyCheck: {
    type: 'object', required: ['status', 'checked_at', 'duration_ms'], additionalProperties: false,
    properties: {
      status: { enum: ['up', 'down', 'degraded', 'disabled'], description: 'degraded: some of the SMB backends answer, not all' },
      servers: {
        type: 'object', required: ['up', 'total'], additionalProperties: false,
        description: 'smb: how many backends answer, of how many',
        properties: { up: { type: 'integer', minimum: 0 }, total: { type: 'integer', minimum: 1 } },
      },
      checked_at: { type: 'string', format: 'date-time' },
      duration_ms: { type: 'number', minimum: 0 },
    },
  },
};
