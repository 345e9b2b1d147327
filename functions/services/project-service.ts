/** Project use cases: registering a price and a name under the version rule (domain/project.ts). */
import { staleProjectVersion, type Project } from '../domain/project.ts';
import { putProjectUnlessOlder } from '../store/project-store.ts';

/**
 * Saves the project and answers it as stored (without a `name`, the stored name stays); 409
 * StaleProjectVersion when a newer version is stored.
 */
export async function saveProject(project: Project): Promise<Project> {
  const saved = await putProjectUnlessOlder(project);
  if (!saved) throw staleProjectVersion(project);
  return saved;
}
