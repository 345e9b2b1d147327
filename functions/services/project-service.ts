/** Project use cases: registering a price, a name and a version's artwork under the version rule (domain/project.ts). */
import { staleProjectVersion, type Project } from '../domain/project.ts';
import { artworkNeedsNewVersion, artworkOf } from '../domain/artwork.ts';
import { getItems } from '../store/library-store.ts';
import { getProject, putArtwork, putProjectUnlessOlder } from '../store/project-store.ts';

/**
 * Saves the project and answers it as stored (without a `name`, the stored name stays; without
 * `itemGuids`, the stored artwork). With `itemGuids`: one BatchGetItem of the items (422 naming every one
 * unknown, erased or scheduled for erasure), the artwork record, then the project. A refusal is 409
 * StaleProjectVersion when a newer version is stored, ArtworkNeedsNewVersion when this one names other items.
 */
export async function saveProject(project: Omit<Project, 'artworkDigest'>): Promise<Project> {
  let toSave: Project = project;
  if (project.itemGuids !== undefined) {
    const found = await getItems(project.itemGuids);
    const artwork = artworkOf(project.projectGuid, project.itemGuids, new Map(found.map((i) => [i.itemGuid, i])));
    await putArtwork(artwork);
    toSave = { ...project, artworkDigest: artwork.digest };
  }
  const saved = await putProjectUnlessOlder(toSave);
  if (saved) return saved;
  if (toSave.artworkDigest !== undefined && (await getProject(project.projectGuid))?.version === project.version)
    throw artworkNeedsNewVersion(project.projectGuid, project.version);
  throw staleProjectVersion(project);
}
