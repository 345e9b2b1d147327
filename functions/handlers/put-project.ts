import { endpoint } from '../http/endpoint.ts';
import { putProject } from '../store/project-store.ts';
import { projectContracts, toProjectOut } from '../contracts/project.ts';

export const handler = endpoint(projectContracts.put, async ({ path, body }) =>
  toProjectOut(await putProject({ projectGuid: path.projectGuid, unitPriceMinor: body.UnitPrice, version: body.Version, lastSavedAt: Date.now() })),
);
