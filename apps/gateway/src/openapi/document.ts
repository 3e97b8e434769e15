// OpenAPI 3.1 document generated from the same zod schemas that validate requests
// (packages/catalog), so the reference cannot drift from the validator. It describes every status,
// header and body the gateway answers; test/e2e checks every response the end-to-end suites receive
// against it, and test/openapi lints it with @redocly/cli. The SDK's types (packages/client) are
// generated from it.
import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import type { SoldCatalog } from '@mediagen/catalog';
import { registerPublicPaths } from './public-paths';
import { registerAdminPaths } from './admin-paths';
import { registerServicePaths } from './service-paths';
import { registerExtensionPaths } from './extension-paths';
import { registerQuotePaths } from './quote-paths';
import { registerEventsPaths } from './events-paths';

export function buildOpenApiDocument(serverUrl: string, sold?: SoldCatalog): object {
  const reg = new OpenAPIRegistry();
  const bearer = reg.registerComponent('securitySchemes', 'bearerAuth', { type: 'http', scheme: 'bearer', description: 'An API key: `Authorization: Bearer mg_...`.' });
  const admin = reg.registerComponent('securitySchemes', 'adminToken', { type: 'http', scheme: 'bearer', description: 'The ADMIN_TOKEN of the deployment.' });
  const documented = registerPublicPaths(reg, [{ [bearer.name]: [] }], sold);
  registerAdminPaths(reg, [{ [admin.name]: [] }]);
  registerServicePaths(reg, [{ [admin.name]: [] }]);
  registerExtensionPaths(reg, [{ [bearer.name]: [] }], [{ [admin.name]: [] }]);
  registerQuotePaths(reg, [{ [bearer.name]: [] }], documented);
  registerEventsPaths(reg, [{ [bearer.name]: [] }]);
  return new OpenApiGeneratorV31(reg.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Media generation task service',
      version: '1.0.0',
      description: 'Asynchronous video and image generation. Submit a task, then poll it until it is completed or failed. Every error body is `{error, code, details?}`; branch on `code`.',
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [{ url: serverUrl }],
    tags: [
      { name: 'Generation', description: 'Submit video and image tasks (billed, idempotent).' },
      { name: 'Tasks', description: 'Poll tasks until they complete or fail.' },
      { name: 'Account', description: 'The balance of the calling key\'s account.' },
      { name: 'Files', description: 'Result and reference files.' },
      { name: 'Admin', description: 'Operator API behind ADMIN_TOKEN.' },
      { name: 'Service', description: 'Front page, this document, health.' },
      { name: 'Provider callbacks', description: 'Where upstream providers report progress; not for API clients.' },
    ],
  });
}
