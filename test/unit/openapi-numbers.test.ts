/**
 * Every integer and number of the OpenAPI document carries its real rule, not zod's safe-integer range
 * (±2^53 - 1), and an example a real answer could hold, so that the reference page's examples do too.
 */
import { describe, expect, it } from 'vitest';
import { buildOpenApi } from '../../functions/contracts/openapi.ts';

type Schema = Record<string, unknown>;

/** Every integer or number schema in the document, by where it is. */
function numericSchemas(node: unknown, at = '#', found: Array<[string, Schema]> = []): Array<[string, Schema]> {
  if (Array.isArray(node)) node.forEach((child, index) => numericSchemas(child, `${at}/${index}`, found));
  else if (node !== null && typeof node === 'object') {
    const schema = node as Schema;
    if (schema.type === 'integer' || schema.type === 'number') found.push([at, schema]);
    for (const [key, child] of Object.entries(schema)) numericSchemas(child, `${at}/${key}`, found);
  }
  return found;
}

const document = buildOpenApi() as { components: { schemas: Record<string, { properties: Record<string, Schema> }> } };
const numbers = numericSchemas(document);

describe('numbers in the OpenAPI document', () => {
  it('are found', () => {
    expect(numbers.length).toBeGreaterThan(20);
  });

  it.each(numbers)('%s has a real lower bound, no ±2^53 bound, and an example within its range', (_, schema) => {
    expect(JSON.stringify(schema)).not.toMatch(/9007199254740991/);
    const minimum = (schema.minimum ?? schema.exclusiveMinimum) as number | undefined;
    expect(minimum, 'a lower bound').toBeTypeOf('number');
    const example = schema.example as number;
    expect(example, 'an example').toBeTypeOf('number');
    if (schema.type === 'integer') expect(Number.isInteger(example)).toBe(true);
    if (schema.minimum !== undefined) expect(example).toBeGreaterThanOrEqual(schema.minimum as number);
    if (schema.exclusiveMinimum !== undefined) expect(example).toBeGreaterThan(schema.exclusiveMinimum as number);
    if (schema.maximum !== undefined) expect(example).toBeLessThanOrEqual(schema.maximum as number);
  });

  it.each(['BasketLine', 'OrderLine', 'OrderLineDetail'])('%s: Id at least 1, Quantity 1 to 999', (name) => {
    const { Id, Quantity } = document.components.schemas[name]?.properties ?? {};
    expect(Id).toMatchObject({ type: 'integer', minimum: 1 });
    expect(Id).not.toHaveProperty('maximum');
    expect(Quantity).toMatchObject({ type: 'integer', minimum: 1, maximum: 999 });
  });
});
