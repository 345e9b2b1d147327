/**
 * Node.js options of every Lambda function, and of the benchmarks that stand in for one.
 *
 * `--max-semi-space-size=2`: V8 otherwise grows its young generation to 16 MB semi-spaces under the
 * allocation rate of a streaming upload, and a 200 MB pull then grows the process by ~65 MB of heap that
 * holds nothing; capped at 2 MB it grows by ~30 MB at the same throughput, whatever the image size
 * (BENCHMARKS.md, pull memory; docs/performance.md, Pull: constant memory).
 */
export const LAMBDA_NODE_OPTIONS: readonly string[] = ['--enable-source-maps', '--max-semi-space-size=2'];
