// Validates API responses against the served OpenAPI document (JSON Schema 2020-12 via ajv).
import { Ajv2020 } from 'ajv/dist/2020.js';
import { openApiDocument } from '../../tracker/api/openapi.js';

const document = openApiDocument({ publicBaseUrl: 'http://localhost:8080' }) as { paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, unknown> }> }>> };
const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
ajv.addSchema(document as object, 'openapi');

const pointer = (...parts: string[]) => parts.map((p) => p.replaceAll('~', '~0').replaceAll('/', '~1')).join('/');

/** Throws with ajv's errors when `body` is not what the document promises for this response. */
export function assertMatchesDocument(method: string, pathTemplate: string, status: number, body: unknown): void {
  const op = document.paths[pathTemplate]?.[method.toLowerCase()];
  if (!op) throw new Error(`the document has no ${method} ${pathTemplate}`);
  if (!op.responses[String(status)]) throw new Error(`the document lists no ${status} for ${method} ${pathTemplate}`);
  const validate = ajv.compile({ $ref: `openapi#/${pointer('paths', pathTemplate, method.toLowerCase(), 'responses', String(status), 'content', 'application/json', 'schema')}` });
  if (!validate(body)) throw new Error(`${method} ${pathTemplate} ${status} does not match the document: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(body).slice(0, 500)}`);
}
