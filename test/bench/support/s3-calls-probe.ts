/**
 * The S3 calls a handler sends, as the cold-start baseline replays them: operation and input of every request
 * that reaches S3. Recorded at the deserialize step, which a presigned URL never reaches (the presigner stops
 * the request before it is sent), so signing a download is not taken for a call.
 */
import type { S3Client } from '@aws-sdk/client-s3';

export interface S3Call {
  /** The command's operation, e.g. `DeleteObject`. */
  operation: string;
  /** The input's plain fields (bucket, key, ...): what a replay of a call without a body needs. */
  input: Record<string, string | number | boolean>;
}

const plainFields = (input: Record<string, unknown>) =>
  Object.fromEntries(
    Object.entries(input).filter(([, value]) => ['string', 'number', 'boolean'].includes(typeof value)),
  ) as S3Call['input'];

export class S3CallsProbe {
  private calls: S3Call[] = [];
  private watching = false;

  constructor(client: S3Client) {
    client.middlewareStack.add(
      (next, context) => async (args) => {
        if (this.watching) {
          const operation = String(context.commandName).replace(/Command$/, '');
          this.calls.push({ operation, input: plainFields(args.input as Record<string, unknown>) });
        }
        return next(args);
      },
      { step: 'deserialize', name: 'benchS3CallsProbe' },
    );
  }

  watch(): void {
    this.calls = [];
    this.watching = true;
  }

  take(): S3Call[] {
    this.watching = false;
    return this.calls;
  }
}
