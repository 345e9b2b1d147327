/** The one place that reads and writes projects (domain/project.ts). */
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '../shared/clients/dynamodb.ts';
import { config } from '../shared/config.ts';
import type { Project } from '../domain/project.ts';
import { batchGetItems } from './batch.ts';
import { projectKey } from './keys.ts';
import { sendIfCondition } from './writes.ts';

/** The project an item holds (the fields it has, whatever else a future writer adds). */
export const projectFromItem = (item: Record<string, unknown>): Project => ({
  projectGuid: item.projectGuid as string,
  unitPriceMinor: item.unitPriceMinor as number,
  version: item.version as number,
  ...(typeof item.name === 'string' ? { name: item.name } : {}),
  lastSavedAt: item.lastSavedAt as number,
});

export async function getProject(projectGuid: string): Promise<Project | undefined> {
  const result = await dynamo.send(
    new GetCommand({ TableName: config.tableName, Key: projectKey(projectGuid), ConsistentRead: true }),
  );
  return result.Item ? projectFromItem(result.Item) : undefined;
}

/** The current prices (and names) of these projects, by guid, in one BatchGetItem (a basket names at most 100); unknown ones are absent. */
export async function getProjectPrices(projectGuids: readonly string[]): Promise<Map<string, Project>> {
  const items = await batchGetItems([...new Set(projectGuids)].map(projectKey));
  return new Map(items.map((item) => [item.projectGuid as string, projectFromItem(item)]));
}

/**
 * Registers or updates a project, unless the stored one has a newer version (the version rule): undefined
 * then. One UpdateItem: a project without a `name` keeps the stored one, and the answer is the project as
 * stored, its name included, without a read.
 */
export async function putProjectUnlessOlder(project: Project): Promise<Project | undefined> {
  // SET only the fields the project has: an absent name leaves the stored one (a PutItem would erase it).
  const fields = Object.entries({ ...project, Type: 'Project' }).filter(([, value]) => value !== undefined);
  const output = await sendIfCondition(
    new UpdateCommand({
      TableName: config.tableName,
      Key: projectKey(project.projectGuid),
      UpdateExpression: `SET ${fields.map((_, index) => `#f${index} = :f${index}`).join(', ')}`,
      ConditionExpression: 'attribute_not_exists(PK) OR #version <= :version',
      ExpressionAttributeNames: {
        ...Object.fromEntries(fields.map(([field], index) => [`#f${index}`, field])),
        '#version': 'version',
      },
      ExpressionAttributeValues: {
        ...Object.fromEntries(fields.map(([, value], index) => [`:f${index}`, value])),
        ':version': project.version,
      },
      ReturnValues: 'ALL_NEW',
    }),
  );
  return output?.Attributes ? projectFromItem(output.Attributes) : undefined;
}
