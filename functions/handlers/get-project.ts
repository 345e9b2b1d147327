import { endpoint } from '../http/endpoint.ts';
import { notFound } from '../shared/errors.ts';
import { getProject } from '../store/project-store.ts';
import { projectContracts, toProjectOut } from '../contracts/project.ts';

export const handler = endpoint(projectContracts.get, async ({ path }) => {
  const project = await getProject(path.projectGuid);
  if (!project) throw notFound('ProjectNotFound', `No project ${path.projectGuid}.`);
  return toProjectOut(project);
});
