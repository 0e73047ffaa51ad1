// OpenAPI paths and schemas of the webhook surface: the intake (src/webhooks/routes.ts),
// the events cached for users (user-events.ts) and the admin API of the webhook clients
// (admin-webhook-clients.ts).

import { adminResponses, AUTH_401, BODY_413, BODY_415, error, header, JSON_BODY_400, jsonBody, ok, operation, ref, RETRY_AFTER, type Json } from './shared.js';

/** Webhook clients and keys are immutable: every change is refused after the admin check. */
function immutableClientOperation(operationId: string): Json {
  return operation({
    operationId,
    summary: 'Refused: clients and keys cannot be changed or regenerated (create a new client, then delete the old one)',
    tags: ['Admin'],
    security: [{ basicAuth: [] }],
    responses: adminResponses({ '413': BODY_413 }, ['client_immutable']),
  });
}

export const webhookPaths = {
  '/edu-api/webhook': {
    post: operation({
      operationId: 'postWebhookEvent',
      summary: 'Accept an event of a registered webhook client',
      description: 'Checks in this order: the three x-webhook-* headers (400), key and User-Agent (401), timestamp (401), event id not seen before (409), then the body (413, 415, 400); a service-eventhandler event over webhooks.user_events.max_event_size gets 413 event_too_large after those.',
      tags: ['Webhooks'],
      security: [{ webhookKey: [] }],
      parameters: [
        { name: 'x-webhook-timestamp', in: 'header', required: true, description: 'Unix time in seconds, at most webhooks.max_timestamp_age old, not in the future', schema: { type: 'string', pattern: '^[0-9]+$' } },
        { name: 'x-webhook-event-id', in: 'header', required: true, description: 'Unique per event, also for retries', schema: { type: 'string' } },
        { name: 'User-Agent', in: 'header', required: true, description: 'The client\'s registered User-Agent, optionally followed by /<version>', schema: { type: 'string' } },
      ],
      requestBody: { required: true, content: jsonBody({ type: 'object' }) },
      responses: {
        '200': ok('Accepted', ref('WebhookAccepted')),
        '400': error('A header is missing, or the body is not a JSON object', ['missing_header', ...JSON_BODY_400]),
        '401': error('Unknown key, User-Agent mismatch, or a timestamp out of range', ['invalid_key', 'user_agent_mismatch', 'invalid_timestamp', 'timestamp_in_future', 'timestamp_expired']),
        '409': error('The event id was already processed', ['duplicate_event']),
        '413': error('Request body over http.max_body, or a service-eventhandler event over webhooks.user_events.max_event_size', ['body_too_large', 'event_too_large']),
        '415': BODY_415,
        '503': error('An actor the intake needs is restarting, this thread\'s copy of the webhook clients is not loaded or not confirmed as current by the webhook-store (webhooks.replica_lease), or (cluster.shared_state: elasticsearch) the event ids the proxies share cannot be checked; retry', ['service_unavailable', 'registry_unavailable', 'shared_state_unavailable'], RETRY_AFTER),
      },
    }),
  },
  '/edu-api/users/{username}/events': {
    get: operation({
      operationId: 'listUserEvents',
      summary: 'The unexpired service-eventhandler events of a user, newest first',
      description: 'Global admins, admin.user and the indexer account read every user\'s events; any other user only their own (the path naming their account as user, DOMAIN\\user or user@realm, case-insensitively), else 403.',
      tags: ['Webhooks'],
      security: [{ basicAuth: [] }],
      parameters: [{ name: 'username', in: 'path', required: true, description: 'Percent-encoded user name', schema: { type: 'string' } }],
      responses: {
        ...adminResponses({ '200': ok('The user\'s cached events', ref('UserEvents'), { 'Cache-Control': header('no-store') }) }, ['invalid_username']),
        '401': AUTH_401,
        '403': error('Authenticated, but neither an admin or allowed service account nor the user named in the path', ['forbidden']),
      },
    }),
  },
  '/edu-api/admin/webhook-clients': {
    post: operation({
      operationId: 'createWebhookClient',
      summary: 'Create a webhook client; its key is generated (reveal it with GET .../{id}/key)',
      tags: ['Admin'],
      security: [{ basicAuth: [] }],
      requestBody: { required: true, content: jsonBody(ref('WebhookClientCreate')) },
      responses: adminResponses({
        '201': ok('Created; the key is masked', ref('WebhookClient'), { Location: header('URI of the new client') }),
        '413': BODY_413,
        '415': BODY_415,
      }, [...JSON_BODY_400, 'read_only_field', 'unknown_field', 'missing_field', 'invalid_field', 'unsupported_user_agent']),
    }),
    get: operation({
      operationId: 'listWebhookClients',
      summary: 'Every webhook client, keys masked',
      tags: ['Admin'],
      security: [{ basicAuth: [] }],
      parameters: [{ name: 'user_agent', in: 'query', required: false, description: 'Only clients with this User-Agent', schema: { type: 'string' } }],
      responses: adminResponses({ '200': ok('The clients', ref('WebhookClientList')) }),
    }),
    delete: operation({
      operationId: 'deleteWebhookClients',
      summary: 'Delete several clients; their keys are rejected at once',
      tags: ['Admin'],
      security: [{ basicAuth: [] }],
      requestBody: { required: true, content: jsonBody(ref('WebhookClientDelete')) },
      responses: adminResponses({
        '200': ok('Which ids were deleted and which were unknown', ref('DeleteResult')),
        '413': BODY_413,
        '415': BODY_415,
      }, [...JSON_BODY_400, 'unknown_field', 'missing_field', 'invalid_field']),
    }),
  },
  '/edu-api/admin/webhook-clients/{id}': {
    parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
    delete: operation({
      operationId: 'deleteWebhookClient',
      summary: 'Delete one client',
      tags: ['Admin'],
      security: [{ basicAuth: [] }],
      responses: adminResponses({
        '200': ok('Deleted', ref('DeleteResult')),
        '404': error('No such client', ['client_not_found']),
      }),
    }),
    put: immutableClientOperation('replaceWebhookClient'),
    patch: immutableClientOperation('updateWebhookClient'),
  },
  '/edu-api/admin/webhook-clients/{id}/key': {
    parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
    get: operation({
      operationId: 'revealWebhookClientKey',
      summary: 'Reveal a client\'s key (written to the audit log, without the key)',
      tags: ['Admin'],
      security: [{ basicAuth: [] }],
      responses: adminResponses({
        '200': ok('The key in clear', ref('WebhookClientKey'), { 'Cache-Control': header('no-store') }),
        '404': error('No such client', ['client_not_found']),
      }),
    }),
    post: immutableClientOperation('regenerateWebhookClientKey'),
    put: immutableClientOperation('setWebhookClientKey'),
  },
  '/edu-api/admin/webhook-user-agents': {
    get: operation({
      operationId: 'listSupportedUserAgents',
      summary: 'The services a webhook client may be created for (webhooks.supported_user_agents)',
      tags: ['Admin'],
      security: [{ basicAuth: [] }],
      responses: adminResponses({ '200': ok('The supported User-Agents', ref('UserAgents')) }),
    }),
  },
};

export const webhookSchemas = {
  WebhookAccepted: {
    type: 'object', required: ['status'], additionalProperties: false, properties: { status: { const: 'ok' } },
  },
  WebhookClient: {
    type: 'object',
    required: ['id', 'user_agent', 'api_key', 'created_at'],
    additionalProperties: false,
    properties: {
      id: { type: 'string', format: 'uuid' },
      user_agent: { type: 'string' },
      api_key: { const: '********', description: 'Masked; reveal with GET /edu-api/admin/webhook-clients/{id}/key' },
      created_at: { type: 'string', format: 'date-time' },
    },
  },
  WebhookClientList: {
    type: 'object', required: ['clients'], additionalProperties: false,
    properties: { clients: { type: 'array', items: ref('WebhookClient') } },
  },
  WebhookClientKey: {
    type: 'object', required: ['id', 'api_key'], additionalProperties: false,
    properties: {
      id: { type: 'string', format: 'uuid' },
      api_key: { type: 'string', pattern: '^[A-Za-z0-9_-]{43}$', description: '32 random bytes, base64url' },
    },
  },
  WebhookClientCreate: {
    type: 'object', required: ['user_agent'], additionalProperties: false,
    properties: { user_agent: { type: 'string', description: 'One of webhooks.supported_user_agents' } },
  },
  WebhookClientDelete: {
    type: 'object', required: ['ids'], additionalProperties: false,
    properties: { ids: { type: 'array', minItems: 1, maxItems: 1000, items: { type: 'string', minLength: 1 } } },
  },
  DeleteResult: {
    type: 'object', required: ['deleted', 'not_found'], additionalProperties: false,
    properties: {
      deleted: { type: 'array', items: { type: 'string' } },
      not_found: { type: 'array', items: { type: 'string' } },
    },
  },
  UserAgents: {
    type: 'object', required: ['user_agents'], additionalProperties: false,
    properties: { user_agents: { type: 'array', items: { type: 'string' } } },
  },
  UserEvents: {
    type: 'object', required: ['username', 'events'], additionalProperties: false,
    properties: {
      username: { type: 'string' },
      events: {
        type: 'array',
        items: {
          type: 'object',
          required: ['event_id', 'client_id', 'received_at', 'payload'],
          additionalProperties: false,
          properties: {
            event_id: { type: 'string' },
            client_id: { type: 'string' },
            received_at: { type: 'string', format: 'date-time' },
            payload: { type: 'object', description: 'The event body as it was sent' },
          },
        },
      },
    },
  },
};
