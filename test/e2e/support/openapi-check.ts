// Checks recorded HTTP responses against the gateway's OpenAPI document: the operation and status
// are documented, required headers are present and documented headers hold their schema, the
// service's own headers are never sent undocumented, and JSON bodies validate (ajv, JSON Schema
// 2020-12 as OpenAPI 3.1 uses). The e2e API client records every response (support/api.ts) and
// the shared suite lifecycle checks them after the file's tests, so a drift fails the run.
import Ajv2020, { ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { buildOpenApiDocument } from '../../../apps/gateway/src/openapi/document';

export interface RecordedResponse {
  method: string;
  /** Path and query as sent, e.g. `/api/video/tasks/tsk_1`. */
  path: string;
  status: number;
  headers: Headers;
  /** Parsed JSON, or null when the body was not JSON or empty. */
  body: unknown;
}

interface HeaderDoc { required?: boolean; schema?: { type?: string } }
interface ResponseDoc { headers?: Record<string, HeaderDoc>; content?: Record<string, unknown> }
interface OperationDoc { responses: Record<string, ResponseDoc> }
type Doc = { paths: Record<string, Record<string, OperationDoc>> };

/** Headers the service sets itself: sending one a response does not document is drift. */
const SERVICE_HEADERS = ['x-request-id', 'ratelimit', 'ratelimit-policy', 'retry-after', 'www-authenticate', 'content-range'];
const DOC_ID = 'https://mediagen.local/openapi.json';

const escapePointer = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

export function createResponseChecker() {
  const doc = buildOpenApiDocument('https://mediagen.local') as Doc;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema(doc as object, DOC_ID);
  const validators = new Map<string, ValidateFunction>();
  // Literal paths before templated ones; `{key}` of /files may span several segments.
  const routes = Object.keys(doc.paths)
    .map((template) => ({
      template,
      params: (template.match(/\{/g) ?? []).length,
      re: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{key\}/g, '(.+)').replace(/\{[^}]+\}/g, '([^/]+)')}$`),
    }))
    .sort((a, b) => a.params - b.params);

  const validatorFor = (pointer: string): ValidateFunction => {
    let v = validators.get(pointer);
    if (!v) {
      v = ajv.compile({ $ref: `${DOC_ID}#${pointer}` });
      validators.set(pointer, v);
    }
    return v;
  };

  /** Problems with one response; empty when it matches the document. */
  function check(r: RecordedResponse): string[] {
    const method = r.method.toLowerCase();
    const pathOnly = r.path.split('?')[0];
    const where = `${r.method} ${r.path} -> ${r.status}`;
    const route = routes.find((x) => x.re.test(pathOnly) && doc.paths[x.template][method]);
    if (!route) return [`${where}: operation not in the document`];
    const op = doc.paths[route.template][method];
    const res = op.responses[String(r.status)];
    if (!res) return [`${where}: status not documented for ${method.toUpperCase()} ${route.template}`];
    const problems: string[] = [];
    const documented = new Map(Object.entries(res.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
    for (const [name, h] of documented) {
      const value = r.headers.get(name);
      if (value === null) {
        if (h.required) problems.push(`${where}: required header ${name} missing`);
        continue;
      }
      if (h.schema?.type === 'integer' && !/^\d+$/.test(value)) problems.push(`${where}: header ${name}=${value} is not an integer`);
    }
    for (const name of SERVICE_HEADERS) if (r.headers.get(name) !== null && !documented.has(name)) problems.push(`${where}: header ${name} sent but not documented`);
    const contentType = (r.headers.get('content-type') ?? '').split(';')[0].trim();
    if (method === 'head' || !contentType) return problems;
    const types = Object.keys(res.content ?? {});
    const media = types.find((t) => t === contentType) ?? types.find((t) => t.endsWith('/*') && contentType.startsWith(t.slice(0, -1)));
    if (!media) return [...problems, `${where}: content type ${contentType} not documented (${types.join(', ') || 'none'})`];
    if (media !== 'application/json') return problems;
    const pointer = `/paths/${escapePointer(route.template)}/${method}/responses/${r.status}/content/${escapePointer(media)}/schema`;
    const validate = validatorFor(pointer);
    if (!validate(r.body)) problems.push(`${where}: body ${JSON.stringify(r.body).slice(0, 300)} does not match: ${ajv.errorsText(validate.errors)}`);
    return problems;
  }

  return { check };
}

/** Responses recorded in this test file (each jest test file has its own module registry). */
export const recordedResponses: RecordedResponse[] = [];

export function openApiViolations(): string[] {
  if (!recordedResponses.length) return [];
  const { check } = createResponseChecker();
  return [...new Set(recordedResponses.flatMap(check))];
}
