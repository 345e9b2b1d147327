/** The part of autocannon's API the HTTP benchmark uses (the package ships no types). */
declare module 'autocannon' {
  interface RawRequest {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string;
  }
  interface Options {
    url: string;
    connections?: number;
    duration?: number;
    requests?: {
      method?: string;
      setupRequest?: (request: RawRequest, context: Record<string, unknown>) => RawRequest;
    }[];
  }
  interface Result {
    requests: { average: number };
    latency: { p99: number };
    non2xx: number;
    errors: number;
    timeouts: number;
  }
  function autocannon(options: Options): Promise<Result>;
  export default autocannon;
}
