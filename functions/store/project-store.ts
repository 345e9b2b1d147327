/** The one place that reads and writes project prices. */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { dynamo } from '../shared/clients/dynamodb.ts';
import { config } from '../shared/config.ts';
import { conflict } from '../shared/errors.ts';
import type { ProjectPrice } from '../domain/basket.ts';
import { batchGetItems } from './batch.ts';

export interface Project extends ProjectPrice {
  lastSavedAt: number;
}

export interface ProjectItem extends Project {
  PK: string;
  SK: string;
  Type: 'Project';
}

export const projectKey = (projectGuid: string) => ({ PK: `PROJECT#${projectGuid}`, SK: 'PROJECT' });

export const toProjectPrice = (item: ProjectItem): Project => ({
  projectGuid: item.projectGuid,
  unitPriceMinor: item.unitPriceMinor,
  version: item.version,
  lastSavedAt: item.lastSavedAt,
});

export async function getProject(projectGuid: string): Promise<Project | undefined> {
  const result = await dynamo.send(new GetCommand({ TableName: config.tableName, Key: projectKey(projectGuid), ConsistentRead: true }));
  return result.Item ? toProjectPrice(result.Item as ProjectItem) : undefined;
}

/** The current prices of these projects, by guid, in one BatchGetItem (a basket names at most 100); unknown ones are absent. */
export async function getProjectPrices(projectGuids: readonly string[]): Promise<Map<string, Project>> {
  const items = await batchGetItems([...new Set(projectGuids)].map(projectKey));
  return new Map(items.map((item) => [item.projectGuid as string, toProjectPrice(item as unknown as ProjectItem)]));
}

/** Registers or updates a project. A version older than the stored one is refused, so late writers cannot roll prices back. */
export async function putProject(project: Project): Promise<Project> {
  const item: ProjectItem = { ...projectKey(project.projectGuid), Type: 'Project', ...project };
  try {
    await dynamo.send(
      new PutCommand({
        TableName: config.tableName,
        Item: item,
        ConditionExpression: 'attribute_not_exists(PK) OR #version <= :version',
        ExpressionAttributeNames: { '#version': 'version' },
        ExpressionAttributeValues: { ':version': project.version },
      }),
    );
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) {
      throw conflict('StaleProjectVersion', `Version: project ${project.projectGuid} already has a newer version than ${project.version}.`);
    }
    throw error;
  }
  return project;
}
