/**
 * Lambda event filtering, as far as this service's patterns use it: nested fields, each a list of allowed
 * values. The local stand-ins of event source mappings (table-stream.ts, ttl.ts) apply the patterns the
 * CDK stack sets on the real mappings.
 */
export function matchesFilter(pattern: Record<string, unknown>, event: unknown): boolean {
  return Object.entries(pattern).every(([field, rule]) => {
    const value = (event as Record<string, unknown> | undefined)?.[field];
    return Array.isArray(rule) ? rule.includes(value) : matchesFilter(rule as Record<string, unknown>, value);
  });
}
