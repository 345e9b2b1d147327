/**
 * The OpenAPI document as the generator reads it: zod's JSON output, typed loosely (read, not validated),
 * with `$ref`s followed within the document, and the one pattern that matters beyond types: the service's
 * wire date, which becomes `Date` in the types and is revived at run time.
 */

export type Schema = Record<string, any>;
export type Doc = Record<string, any>;

/** A wire date `"\/Date(ms)\/"`: a string schema whose pattern is the service's date pattern. */
export const isWireDate = (schema: Schema) =>
  schema.type === 'string' && typeof schema.pattern === 'string' && schema.pattern.includes('Date\\(');

/** What `value` stands for: itself, or the target of its `$ref` (a pointer into `doc`, chains followed). */
export function resolve(doc: Doc, value: Schema): Schema {
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
