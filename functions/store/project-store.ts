/** The one place that reads and writes projects (domain/project.ts). */
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '../shared/clients/dynamodb.ts';
import { config } from '../shared/config.ts';
import type { Project } from '../domain/project.ts';
import type { Artwork } from '../domain/artwork.ts';
import { batchGetItems } from './batch.ts';
import { artworkKey, projectKey } from './keys.ts';
import { fromItem, toItem } from './table.ts';
import { sendIfCondition } from './writes.ts';

/** The project an item holds (the fields it has, whatever else a future writer adds). */
export const projectFromItem = (item: Record<string, unknown>): Project => ({
  projectGuid: item.projectGuid as string,
  unitPriceMinor: item.unitPriceMinor as number,
  version: item.version as number,
  ...(typeof item.name === 'string' ? { name: item.name } : {}),
  ...(Array.isArray(item.itemGuids)
    ? { itemGuids: item.itemGuids as string[], artworkDigest: item.artworkDigest as string }
    : {}),
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
 * Registers or updates a project, unless the stored one has a newer version (the version rule), or the same
 * version with other artwork (a version's artwork is fixed): undefined then. One UpdateItem: a project
 * without a `name` (or `itemGuids`) keeps the stored one, and the answer is the project as stored, its name
 * included, without a read. Artwork is put first (putArtwork), so a project never names a missing record.
 */
export async function putProjectUnlessOlder(project: Project): Promise<Project | undefined> {
  // SET only the fields the project has: an absent name leaves the stored one (a PutItem would erase it).
  const fields = Object.entries({ ...project, Type: 'Project' }).filter(([, value]) => value !== undefined);
  const output = await sendIfCondition(
    new UpdateCommand({
      TableName: config.tableName,
      Key: projectKey(project.projectGuid),
      UpdateExpression: `SET ${fields.map((_, index) => `#f${index} = :f${index}`).join(', ')}`,
      ConditionExpression:
        project.artworkDigest === undefined
          ? 'attribute_not_exists(PK) OR #version <= :version'
          : 'attribute_not_exists(PK) OR #version < :version OR (#version = :version AND artworkDigest = :f_digest)',
      ExpressionAttributeNames: {
        ...Object.fromEntries(fields.map(([field], index) => [`#f${index}`, field])),
        '#version': 'version',
      },
      ExpressionAttributeValues: {
        ...Object.fromEntries(fields.map(([, value], index) => [`:f${index}`, value])),
        ':version': project.version,
        ...(project.artworkDigest === undefined ? {} : { ':f_digest': project.artworkDigest }),
      },
      ReturnValues: 'ALL_NEW',
    }),
  );
  return output?.Attributes ? projectFromItem(output.Attributes) : undefined;
}

/**
 * Puts a version's artwork record: immutable and named by its digest, so a repeat writes the same record and
 * one left behind by a refused PUT names nothing and harms nothing.
 */
export async function putArtwork(artwork: Artwork): Promise<void> {
  await dynamo.send(
    new PutCommand({
      TableName: config.tableName,
      Item: toItem(artworkKey(artwork.projectGuid, artwork.digest), 'Artwork', artwork),
    }),
  );
}

/** The artwork records of these (project, digest) pairs, by `<project>#<digest>`, in one BatchGetItem per 100. */
export async function getArtworks(
  refs: readonly { projectGuid: string; artworkDigest: string }[],
): Promise<Map<string, Artwork>> {
  const items = await batchGetItems(refs.map((ref) => artworkKey(ref.projectGuid, ref.artworkDigest)));
  return new Map(
    items.map((item) => {
      const artwork = fromItem<Artwork>(item);
      return [`${artwork.projectGuid}#${artwork.digest}`, artwork];
    }),
  );
}
