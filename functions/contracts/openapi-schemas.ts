/**
 * The OpenAPI document's JSON Schemas: zod contracts to JSON Schema 2020-12, each request and response body a
 * named component under `components/schemas` that operations refer to by `$ref`.
 */
import * as z from 'zod/mini';
import type { requestSchemas } from './common.ts';

export type JsonSchema = Record<string, unknown>;
export type Io = 'input' | 'output';

const SCHEMAS = '#/components/schemas/';

/**
 * zod writes every integer's safe range (±2^53 - 1) as its bounds; a bound that is only the safe range is
 * no rule of the contract's (the contracts state the real ones), so it is left out.
 */
const withoutSafeIntegerBounds = ({ jsonSchema }: { jsonSchema: JsonSchema }): void => {
  if (jsonSchema.minimum === Number.MIN_SAFE_INTEGER) delete jsonSchema.minimum;
  if (jsonSchema.maximum === Number.MAX_SAFE_INTEGER) delete jsonSchema.maximum;
};

const options = (io: Io) => ({ io, unrepresentable: 'any', override: withoutSafeIntegerBounds }) as const;

export const schemaOf = (schema: z.ZodMiniType, io: Io): JsonSchema => {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, options(io)) as JsonSchema;
  return rest;
};

/** Every named schema of one direction, as JSON Schema with `$ref`s between them. */
export function namedSchemas(
  io: Io,
  named: typeof requestSchemas,
  unnamed: Map<z.ZodMiniType, string>,
): Record<string, JsonSchema> {
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of named._idmap) registry.add(schema, { id });
  for (const [schema, id] of unnamed) if (!registry.has(schema)) registry.add(schema, { id });
  const { schemas } = z.toJSONSchema(registry, { ...options(io), uri: (id) => `${SCHEMAS}${id}` });
  if ('__shared' in schemas)
    throw new Error('a schema refers to itself without a name of its own; name it with nameSchemas');
  // `$id` would be a fragment-only URI, which JSON Schema 2020-12 forbids; the component's key is its name.
  return Object.fromEntries(
    Object.entries(schemas).map(([id, schema]) => [
      id,
      (({ $schema: _dialect, $id: _id, ...rest }) => rest)(schema as JsonSchema),
    ]),
  );
}

/** The id a body schema is listed under, recording a name for it when its contract gave none. */
export function refTo(
  schema: z.ZodMiniType,
  named: typeof requestSchemas,
  unnamed: Map<z.ZodMiniType, string>,
  fallback: string,
): { $ref: string } {
  const id = named.get(schema)?.id ?? unnamed.get(schema) ?? fallback;
  if (!named.has(schema)) unnamed.set(schema, id);
  return { $ref: `${SCHEMAS}${id}` };
}

/** Request and response schemas of one name must agree (a schema used both ways, such as an enum). */
export function mergeSchemas(
  requests: Record<string, JsonSchema>,
  responses: Record<string, JsonSchema>,
): Record<string, JsonSchema> {
  for (const [id, schema] of Object.entries(requests)) {
    if (id in responses && JSON.stringify(responses[id]) !== JSON.stringify(schema))
      throw new Error(`schema name ${id} is used for a request and a different response schema`);
  }
  const merged = { ...responses, ...requests };
  return Object.fromEntries(
    Object.keys(merged)
      .sort()
      .map((id) => [id, merged[id] as JsonSchema]),
  );
}
