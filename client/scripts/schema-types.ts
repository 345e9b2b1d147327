/**
 * TypeScript source text for the document's schemas: types, property keys and doc comments, each written
 * for the indentation of the line it goes on. `$ref`s to named schemas stay references (`Schemas["X"]`).
 */
import { isWireDate, resolve, type Doc, type Schema } from './openapi-document.ts';

export const isIdentifier = (name: string) => /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name);
export const propertyKey = (name: string) => (isIdentifier(name) ? name : JSON.stringify(name));
export const docComment = (text: unknown, indent: string) =>
  typeof text === 'string' && text !== ''
    ? `${indent}/** ${text.replaceAll('*/', '*\\/').replace(/\s*\n\s*/g, ' ')} */\n`
    : '';

const SCHEMA_REF = /^#\/components\/schemas\/(.+)$/;

/** The TypeScript type of a JSON Schema (2020-12, the subset zod emits), `indent` being the current line's. */
export function typeOf(doc: Doc, schema: Schema | boolean | undefined, indent: string): string {
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
