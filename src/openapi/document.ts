// The OpenAPI 3.1 description of every HTTP endpoint of the service, served
// at GET /openapi.json. Response schemas follow the route code in
// actors/http-front/routes/; the integration tests validate every response
// they receive against this document (test/support/openapi-check.ts).
//
// This module assembles the document from one module per surface: webhooks.ts
// (intake, user events, webhook-client admin), wiki.ts (search, listings,
// visibility admin), webdav.ts, operations.ts (health, readiness, metrics, this
// document) and admin-page.ts; shared.ts holds what they have in common.

import { adminPagePaths } from './admin-page.js';
import { operationsPaths, operationsSchemas } from './operations.js';
import { errorSchema, securitySchemes } from './shared.js';
import { webdavPaths } from './webdav.js';
import { webhookPaths, webhookSchemas } from './webhooks.js';
import { wikiPaths, wikiSchemas } from './wiki.js';

export const openApiDocument = {
  openapi: '3.1.0',
  info: {
    title: 'edu-fileproxy',
    version: '1.2.0',
    description: 'File proxy for school networks: WebDAV on SMB shares, a Markdown wiki with permission-filtered search, webhook intake. '
      + 'Every error answer has the shape {"status":"error","error":"<code>","message":"<text>"}; every answer carries X-Request-Id '
      + '(the caller\'s, when it is a plain token of at most 128 characters, else a new UUID).',
  },
  tags: [
    { name: 'Webhooks', description: 'Webhook intake and the events cached for users' },
    { name: 'Admin', description: 'Settings for global admins (members of admin.groups), with basic credentials' },
    { name: 'Wiki', description: 'Search and listings of the wiki pages the caller may see' },
    { name: 'WebDAV', description: 'The SMB shares as the user of the basic credentials' },
    { name: 'Operations', description: 'Health, readiness, metrics and this document' },
  ],
  paths: {
    ...webhookPaths,
    ...wikiPaths,
    ...webdavPaths,
    ...operationsPaths,
    ...adminPagePaths,
  },
  components: {
    securitySchemes,
    schemas: {
      Error: errorSchema,
      ...webhookSchemas,
      ...wikiSchemas,
      ...operationsSchemas,
    },
  },
};
