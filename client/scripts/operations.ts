/**
 * The document's operations as rows of the generated file: per operation its id, method, path and summary,
 * its path/query/body/response types, and what the client needs at run time (credential, idempotency,
 * body kind, where the response holds dates); and the header an `apiKey` credential goes in.
 */
import { isWireDate, resolve, type Doc, type Schema } from './openapi-document.ts';
import { docComment, propertyKey, typeOf } from './schema-types.ts';

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

const camelCase = (id: string): string =>
  id
    .replace(/[-_ .]+([a-zA-Z0-9])/g, (_, letter: string) => letter.toUpperCase())
    .replace(/^[A-Z]/, (letter) => letter.toLowerCase());

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

export function apiKeyHeaderOf(doc: Doc): string {
  const scheme = Object.values<Schema>(doc.components?.securitySchemes ?? {}).find(
    (candidate) => candidate.type === 'apiKey' && candidate.in === 'header',
  );
  if (!scheme) throw new Error('the document names no API key header');
  return scheme.name;
}

/** The success answer's schema; several 2xx answers (a 202 beside the 200) are their union. */
const successOf = (doc: Doc, operation: Schema): Schema | undefined => {
  const schemas = Object.keys(operation.responses ?? {})
    .filter((code) => /^2\d\d$/.test(code))
    .flatMap((code) => {
      const schema = resolve(doc, operation.responses[code]).content?.['application/json']?.schema;
      return schema === undefined ? [] : [schema as Schema];
    });
  return schemas.length > 1 ? { anyOf: schemas } : schemas[0];
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

export interface OperationRow {
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

export function operationRows(doc: Doc): OperationRow[] {
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
