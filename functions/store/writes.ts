/**
 * Conditional writes: a PutItem, UpdateItem or DeleteItem whose condition may fail as part of its meaning
 * ("already claimed", "someone saved first"). A failed condition wrote nothing; it is an answer, not an error.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import type {
  DeleteCommand,
  DeleteCommandOutput,
  PutCommand,
  PutCommandOutput,
  UpdateCommand,
  UpdateCommandOutput,
} from '@aws-sdk/lib-dynamodb';
import { dynamo } from '../shared/clients/dynamodb.ts';

type ConditionalWrite = PutCommand | UpdateCommand | DeleteCommand;
type OutputOf<C extends ConditionalWrite> = C extends PutCommand
  ? PutCommandOutput
  : C extends UpdateCommand
    ? UpdateCommandOutput
    : DeleteCommandOutput;

/** Sends the write: its output, or undefined when its condition did not hold. Any other failure is thrown. */
export async function sendIfCondition<C extends ConditionalWrite>(command: C): Promise<OutputOf<C> | undefined> {
  try {
    return (await dynamo.send(command as PutCommand)) as OutputOf<C>;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return undefined;
    throw error;
  }
}

/** Sends the write: true when it was applied, false when its condition did not hold. */
export const writeIf = async (command: ConditionalWrite): Promise<boolean> =>
  (await sendIfCondition(command)) !== undefined;
