// OpenAPI paths of the admin page and its files (actors/http-front/routes/admin-ui.ts).

import { error, header, noBody, operation } from './shared.js';

export const adminPagePaths = {
  '/admin': {
    get: operation({
      operationId: 'redirectAdminPage',
      summary: 'Redirect to the admin page',
      tags: ['Admin'],
      responses: { '301': noBody('To /admin/', { Location: header('/admin/') }) },
    }),
  },
  '/admin/': {
    get: operation({
      operationId: 'getAdminPage',
      summary: 'The admin settings page (sign-in with a global admin\'s directory credentials happens in the page)',
      tags: ['Admin'],
      responses: {
        '200': { description: 'The page', headers: { ETag: header('Revalidate with If-None-Match') }, content: { 'text/html': { schema: { type: 'string' } } } },
        '304': noBody('Not modified'),
        '500': error('The page\'s files are missing from the installation', ['admin_ui_missing', 'internal_error']),
      },
    }),
  },
  '/admin/{file}': {
    get: operation({
      operationId: 'getAdminAsset',
      summary: 'A script, style sheet or image of the admin page',
      tags: ['Admin'],
      parameters: [{ name: 'file', in: 'path', required: true, schema: { type: 'string' } }],
      responses: {
        '200': {
          description: 'The file',
          headers: { ETag: header('Revalidate with If-None-Match') },
          content: Object.fromEntries(['text/html', 'text/javascript', 'text/css', 'image/svg+xml', 'image/png'].map((type) => [type, { schema: { type: 'string' } }])),
        },
        '304': noBody('Not modified'),
        '404': error('No such file on the admin page', ['not_found']),
        '500': error('The page\'s files are missing from the installation', ['admin_ui_missing', 'internal_error']),
      },
    }),
  },
};
