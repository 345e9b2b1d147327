/** Project use cases: registering a price under the version rule (domain/project.ts). */
import { staleProjectVersion, type Project } from '../domain/project.ts';
import { putProjectUnlessOlder } from '../store/project-store.ts';

/** Saves the project; 409 StaleProjectVersion when a newer version is stored. */
export async function saveProject(project: Project): Promise<Project> {
  if (!(await putProjectUnlessOlder(project))) throw staleProjectVersion(project);
  return project;
}
