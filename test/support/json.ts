/** A response body parsed as JSON, or undefined when it is not JSON (an answer under test may be anything). */
export function parseJsonOrUndefined(text: string): any {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
