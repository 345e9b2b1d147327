/** The one place that reads and writes projects (domain/project.ts). */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '../shared/clients/dynamodb.ts';
import { config } from '../shared/config.ts';
import type { Project } from '../domain/project.ts';
import { batchGetItems } from './batch.ts';
import { projectKey } from './keys.ts';
import { toItem } from './table.ts';
import { writeIf } from './writes.ts';

/** The project an item holds (the fields it has, whatever else a future writer adds). */
export const projectFromItem = (item: Record<string, unknown>): Project => ({
  projectGuid: item.projectGuid as string,
  unitPriceMinor: item.unitPriceMinor as number,
  version: item.version as number,
  lastSavedAt: item.lastSavedAt as number,
});

export async function getProject(projectGuid: string): Promise<Project | undefined> {
  const result = await dynamo.send(
    new GetCommand({ TableName: config.tableName, Key: projectKey(projectGuid), ConsistentRead: true }),
  );
  return result.Item ? projectFromItem(result.Item) : undefined;
}

/** The current prices of these projects, by guid, in one BatchGetItem (a basket names at most 100); unknown ones are absent. */
export async function getProjectPrices(projectGuids: readonly string[]): Promise<Map<string, Project>> {
  const items = await batchGetItems([...new Set(projectGuids)].map(projectKey));
  return new Map(items.map((item) => [item.projectGuid as string, projectFromItem(item)]));
}

/** Registers or updates a project, unless the stored one has a newer version (the version rule): false then. */
export const putProjectUnlessOlder = (project: Project): Promise<boolean> =>
  writeIf(
    new PutCommand({
      TableName: config.tableName,
      Item: toItem(projectKey(project.projectGuid), 'Project', project),
      ConditionExpression: 'attribute_not_exists(PK) OR #version <= :version',
      ExpressionAttributeNames: { '#version': 'version' },
      ExpressionAttributeValues: { ':version': project.version },
    }),
  );
