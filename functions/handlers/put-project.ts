import { endpoint } from '../http/endpoint.ts';
import { saveProject } from '../services/project-service.ts';
import { projectContracts, toProjectOut } from '../contracts/project.ts';

export const handler = endpoint(projectContracts.put, async ({ path, body }) =>
  toProjectOut(
    await saveProject({
      projectGuid: path.projectGuid,
      ...(body.Name === undefined ? {} : { name: body.Name }),
      ...(body.ItemGuids === undefined ? {} : { itemGuids: body.ItemGuids }),
      unitPriceMinor: body.UnitPrice,
      version: body.Version,
      lastSavedAt: Date.now(),
    }),
  ),
);
