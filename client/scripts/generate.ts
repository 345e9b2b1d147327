/**
 * Writes client/src/generated/api.ts from the service's OpenAPI document, built in-process from the route
 * table and the zod contracts (the same builder that serves GET /openapi.json). Handles inline schemas and
 * `$ref`s to `#/components/...` alike. Run: `npm run generate -w client`.
 *
 * Output: the named schemas (`Schemas`), one entry per operation in `Operations` (path and query
 * parameters, JSON body, response) and the runtime table `operations` (method, path, credential,
 * idempotency, body kind, and where the response holds dates, so only those strings become `Date`).
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { format, resolveConfig } from 'prettier';
import { buildOpenApi } from '../../functions/contracts/openapi.ts';

type Schema = Record<string, any>;
type Doc = Record<string, any>;

export const GENERATED_FILE = fileURLToPath(new URL('../src/generated/api.ts', import.meta.url));

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;
/** Names a generated alias must not take: they would shadow the platform's globals in consumers' code. */
const RESERVED = new Set([
  'Error',
  'Date',
  'Object',
  'Array',
  'Record',
  'Promise',
  'String',
  'Number',
  'Boolean',
  'Response',
  'Request',
]);

const camelCase = (id: string): string =>
  id
    .replace(/[-_ .]+([a-zA-Z0-9])/g, (_, letter: string) => letter.toUpperCase())
    .replace(/^[A-Z]/, (letter) => letter.toLowerCase());
const isIdentifier = (name: string) => /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name);
const propertyKey = (name: string) => (isIdentifier(name) ? name : JSON.stringify(name));
const docComment = (text: unknown, indent: string) =>
  typeof text === 'string' && text !== ''
    ? `${indent}/** ${text.replaceAll('*/', '*\\/').replace(/\s*\n\s*/g, ' ')} */\n`
    : '';

/** A wire date `"\/Date(ms)\/"`: a string schema whose pattern is the service's date pattern. */
const isWireDate = (schema: Schema) =>
  schema.type === 'string' && typeof schema.pattern === 'string' && schema.pattern.includes('Date\\(');

function resolve(doc: Doc, value: Schema): Schema {
  let current = value;
  for (let hops = 0; typeof current?.$ref === 'string'; hops++) {
    if (hops > 20 || !current.$ref.startsWith('#/')) throw new Error(`cannot resolve ${current.$ref}`);
    current = current.$ref
      .slice(2)
      .split('/')
      .reduce((node: any, segment: string) => node?.[segment.replaceAll('~1', '/').replaceAll('~0', '~')], doc);
    if (current === undefined) throw new Error(`dangling reference ${value.$ref}`);
  }
  return current;
}

const SCHEMA_REF = /^#\/components\/schemas\/(.+)$/;

/** The TypeScript type of a JSON Schema (2020-12, the subset zod emits), `indent` being the current line's. */
function typeOf(doc: Doc, schema: Schema | boolean | undefined, indent: string): string {
  if (schema === undefined || schema === true) return 'unknown';
  if (schema === false) return 'never';
  if (typeof schema.$ref === 'string') {
    const named = SCHEMA_REF.exec(schema.$ref);
    return named ? `Schemas[${JSON.stringify(named[1])}]` : typeOf(doc, resolve(doc, schema), indent);
  }
  if ('const' in schema) return JSON.stringify(schema.const);
  if (Array.isArray(schema.enum)) return schema.enum.map((value: unknown) => JSON.stringify(value)).join(' | ');
  for (const union of ['anyOf', 'oneOf'] as const) {
    if (Array.isArray(schema[union]))
      return schema[union].map((part: Schema) => parenthesize(typeOf(doc, part, indent))).join(' | ');
  }
  if (Array.isArray(schema.allOf))
    return schema.allOf.map((part: Schema) => parenthesize(typeOf(doc, part, indent))).join(' & ');
  if (schema.not && Object.keys(schema.not).length === 0) return 'never';
  if (Array.isArray(schema.type))
    return schema.type.map((type: string) => typeOf(doc, { ...schema, type }, indent)).join(' | ');
  switch (schema.type) {
    case 'string':
      return isWireDate(schema) ? 'Date' : 'string';
    case 'integer':
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array':
      return `Array<${typeOf(doc, schema.items, indent)}>`;
    case 'object':
      return objectType(doc, schema, indent);
    default:
      return schema.properties ? objectType(doc, schema, indent) : 'unknown';
  }
}

const parenthesize = (type: string) => (/[|&]/.test(type) && !type.startsWith('{') ? `(${type})` : type);

function objectType(doc: Doc, schema: Schema, indent: string): string {
  const inner = `${indent}  `;
  const required = new Set<string>(schema.required ?? []);
  const lines = Object.entries<Schema>(schema.properties ?? {}).map(
    ([name, property]) =>
      `${docComment(property.description, inner)}${inner}${propertyKey(name)}${required.has(name) ? '' : '?'}: ${typeOf(doc, property, inner)};\n`,
  );
  const extra = schema.additionalProperties;
  if (extra !== undefined && extra !== false) {
    // A record's value type must admit the named properties too; with both, `unknown` is the honest type.
    const valueType = lines.length === 0 && extra !== true ? typeOf(doc, extra, inner) : 'unknown';
    lines.push(`${inner}[key: string]: ${valueType};\n`);
  }
  if (lines.length === 0) return extra === false ? 'Record<string, never>' : 'Record<string, unknown>';
  return `{\n${lines.join('')}${indent}}`;
}

/** Where a response holds wire dates: property paths, `*` standing for every array element or record value. */
function datePaths(doc: Doc, schema: Schema | undefined, path: string[] = [], depth = 0): string[][] {
  if (schema === undefined || typeof schema !== 'object' || depth > 32) return [];
  const resolved = resolve(doc, schema);
  if (isWireDate(resolved)) return [path];
  const found: string[][] = [];
  for (const [name, property] of Object.entries<Schema>(resolved.properties ?? {}))
    found.push(...datePaths(doc, property, [...path, name], depth + 1));
  if (resolved.items) found.push(...datePaths(doc, resolved.items, [...path, '*'], depth + 1));
  if (resolved.additionalProperties && typeof resolved.additionalProperties === 'object')
    found.push(...datePaths(doc, resolved.additionalProperties, [...path, '*'], depth + 1));
  for (const part of [...(resolved.anyOf ?? []), ...(resolved.oneOf ?? []), ...(resolved.allOf ?? [])])
    found.push(...datePaths(doc, part, path, depth + 1));
  const unique = new Map(found.map((entry) => [entry.join('\u0000'), entry]));
  return [...unique.values()];
}

function credentialOf(doc: Doc, operation: Schema): 'none' | 'bearer' | 'apiKey' {
  const requirements: Array<Record<string, unknown>> = operation.security ?? doc.security ?? [];
  const schemeName = requirements.flatMap((requirement) => Object.keys(requirement))[0];
  if (schemeName === undefined) return 'none';
  const scheme = resolve(doc, doc.components?.securitySchemes?.[schemeName] ?? {});
  if (scheme.type === 'http' && String(scheme.scheme).toLowerCase() === 'bearer') return 'bearer';
  if (scheme.type === 'apiKey') return 'apiKey';
  throw new Error(`unsupported security scheme ${schemeName}`);
}

function apiKeyHeaderOf(doc: Doc): string {
  const scheme = Object.values<Schema>(doc.components?.securitySchemes ?? {}).find(
    (candidate) => candidate.type === 'apiKey' && candidate.in === 'header',
  );
  if (!scheme) throw new Error('the document names no API key header');
  return scheme.name;
}

const successOf = (doc: Doc, operation: Schema): Schema | undefined => {
  const status = Object.keys(operation.responses ?? {}).find((code) => /^2\d\d$/.test(code));
  return status === undefined
    ? undefined
    : resolve(doc, operation.responses[status]).content?.['application/json']?.schema;
};

/** A string parameter whose pattern admits digits only (`lineId`, `?limit=`): it takes a number too. */
const isDigitsOnly = (schema: Schema) =>
  schema.type === 'string' &&
  typeof schema.pattern === 'string' &&
  /^\^(?:\[1-9\]|\[0-9\]|\\d|\{\d+(?:,\d*)?\}|[*+?])+\$$/.test(schema.pattern);

function parameterBlock(doc: Doc, parameters: Schema[], indent: string): string {
  if (parameters.length === 0) return 'Record<string, never>';
  const inner = `${indent}  `;
  const typeOfParameter = (schema: Schema | undefined) =>
    schema && isDigitsOnly(resolve(doc, schema)) ? 'number | string' : typeOf(doc, schema, inner);
  const lines = parameters.map(
    (parameter) =>
      `${docComment(parameter.description ?? parameter.schema?.description, inner)}${inner}${propertyKey(parameter.name)}${parameter.required ? '' : '?'}: ${typeOfParameter(parameter.schema)};\n`,
  );
  return `{\n${lines.join('')}${indent}}`;
}

interface OperationRow {
  id: string;
  method: string;
  path: string;
  summary: string | undefined;
  credential: 'none' | 'bearer' | 'apiKey';
  idempotent: boolean;
  body: 'none' | 'json' | 'multipart';
  types: string;
  dates: string[][];
}

function operationRows(doc: Doc): OperationRow[] {
  const rows: OperationRow[] = [];
  for (const [path, item] of Object.entries<Schema>(doc.paths ?? {})) {
    for (const method of HTTP_METHODS) {
      const operation: Schema | undefined = item[method];
      if (!operation) continue;
      if (typeof operation.operationId !== 'string')
        throw new Error(`${method.toUpperCase()} ${path} has no operationId`);
      const parameters = [...(item.parameters ?? []), ...(operation.parameters ?? [])].map((parameter: Schema) =>
        resolve(doc, parameter),
      );
      const requestBody = operation.requestBody ? resolve(doc, operation.requestBody) : undefined;
      const jsonBody = requestBody?.content?.['application/json']?.schema;
      const body = jsonBody
        ? 'json'
        : requestBody?.content?.['multipart/form-data']
          ? 'multipart'
          : requestBody
            ? unsupported(method, path)
            : 'none';
      const response = successOf(doc, operation);
      const indent = '    ';
      const types = [
        `    path: ${parameterBlock(
          doc,
          parameters.filter((parameter) => parameter.in === 'path'),
          indent,
        )};\n`,
        `    query: ${parameterBlock(
          doc,
          parameters.filter((parameter) => parameter.in === 'query'),
          indent,
        )};\n`,
        `    body: ${body === 'json' ? typeOf(doc, jsonBody, indent) : 'undefined'};\n`,
        `    response: ${typeOf(doc, response, indent)};\n`,
      ].join('');
      rows.push({
        id: camelCase(operation.operationId),
        method: method.toUpperCase(),
        path,
        summary: operation.summary,
        credential: credentialOf(doc, operation),
        idempotent: parameters.some(
          (parameter) => parameter.in === 'header' && String(parameter.name).toLowerCase() === 'idempotency-key',
        ),
        body,
        types,
        dates: datePaths(doc, response),
      });
    }
  }
  return rows.sort((a, b) => a.id.localeCompare(b.id));
}

function unsupported(method: string, path: string): never {
  throw new Error(`${method.toUpperCase()} ${path}: only JSON and multipart request bodies are supported`);
}

/** The source text of client/src/generated/api.ts for an OpenAPI document. */
export function generateApiSource(doc: Doc): string {
  const schemas = Object.entries<Schema>(doc.components?.schemas ?? {}).sort(([a], [b]) => a.localeCompare(b));
  const rows = operationRows(doc);
  const out: string[] = [
    '// Generated by client/scripts/generate.ts from the OpenAPI document (functions/contracts/openapi.ts).\n',
    '// Do not edit: run `npm run generate -w client`. A test fails when this file is stale.\n\n',
    `/** ${doc.info?.title ?? 'API'} ${doc.info?.version ?? ''} */\n`,
    `export const apiKeyHeader = ${JSON.stringify(apiKeyHeaderOf(doc))};\n\n`,
    '/** The named schemas of the document (`components/schemas`). */\n',
    'export interface Schemas {\n',
    ...schemas.map(
      ([name, schema]) =>
        `${docComment(schema.description, '  ')}  ${propertyKey(name)}: ${typeOf(doc, schema, '  ')};\n`,
    ),
    '}\n\n',
    ...schemas
      .filter(([name]) => isIdentifier(name) && !RESERVED.has(name))
      .map(([name]) => `export type ${name} = Schemas[${JSON.stringify(name)}];\n`),
    schemas.length > 0 ? '\n' : '',
    '/** Per operation: path and query parameters, JSON request body and the success response. */\n',
    'export interface Operations {\n',
    ...rows.map(
      (row) =>
        `${docComment(`${row.method} ${row.path}${row.summary ? `: ${row.summary}` : ''}`, '  ')}  ${row.id}: {\n${row.types}  };\n`,
    ),
    '}\n\n',
    'export type OperationId = keyof Operations;\n\n',
    'export interface OperationInfo {\n',
    "  method: 'GET' | 'PUT' | 'POST' | 'DELETE' | 'PATCH';\n",
    '  path: string;\n',
    "  credential: 'none' | 'bearer' | 'apiKey';\n",
    '  /** Takes an Idempotency-Key: the client sends one per call and reuses it on retries. */\n',
    '  idempotent: boolean;\n',
    "  body: 'none' | 'json' | 'multipart';\n",
    '  /** Property paths of the response that hold wire dates (`*`: every element). */\n',
    '  dates: ReadonlyArray<ReadonlyArray<string>>;\n',
    '}\n\n',
    'export const operations: { readonly [K in OperationId]: OperationInfo } = {\n',
    ...rows.map(
      (row) =>
        `  ${row.id}: { method: '${row.method}', path: '${row.path}', credential: '${row.credential}', idempotent: ${row.idempotent}, body: '${row.body}', dates: ${JSON.stringify(row.dates)} },\n`,
    ),
    '};\n',
  ];
  return out.join('');
}

/**
 * The file as committed: the source in the project's format (Prettier, .prettierrc.json), so formatting the
 * tree leaves it as generated and the staleness test keeps comparing like with like.
 */
export async function renderApiFile(doc: Doc): Promise<string> {
  const options = await resolveConfig(GENERATED_FILE);
  return format(generateApiSource(doc), { ...options, filepath: GENERATED_FILE });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(GENERATED_FILE, await renderApiFile(buildOpenApi()));
  console.log(`wrote ${GENERATED_FILE}`);
}
