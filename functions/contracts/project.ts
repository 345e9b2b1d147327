/** Project price schemas. Prices are registered by the company's own systems (catalog API key). */
import * as z from 'zod/mini';
import { fromMinorUnits } from '../shared/money.ts';
import { formatDate } from '../shared/dates.ts';
import type { Project } from '../domain/project.ts';
import {
  Guid,
  GuidOut,
  IntegerOut,
  MoneyIn,
  MoneyOut,
  nameSchemas,
  requestSchemas,
  responseSchemas,
  WireDateOut,
} from './common.ts';

export const MAX_UNIT_PRICE = 1_000_000;
const MAX_VERSION = 2_147_483_647;
const VERSION_EXAMPLE = 3;

export const ProjectPath = z.object({ projectGuid: Guid });

export const ProjectInput = z.object({
  /** Parsed into minor units. */
  UnitPrice: MoneyIn(MAX_UNIT_PRICE).check(z.meta({ example: 29.99 })),
  Version: z
    .number()
    .check(
      z.int('must be a whole number'),
      z.minimum(0, 'must not be negative'),
      z.maximum(MAX_VERSION, 'must fit in 32 bits'),
      z.meta({ example: VERSION_EXAMPLE }),
    ),
});

/** A project's version as answered (the `Version` it was registered with). */
export const ProjectVersionOut = IntegerOut({ minimum: 0, maximum: MAX_VERSION, example: VERSION_EXAMPLE });

export const ProjectOut = z.object({
  ProjectGuid: GuidOut,
  UnitPrice: MoneyOut,
  Version: ProjectVersionOut,
  LastSavedDateUtc: WireDateOut,
});

// A contract table reads best one row per operation.
// prettier-ignore
export const projectContracts = {
  put: { principal: 'catalog', path: ProjectPath, body: ProjectInput, response: ProjectOut, errors: { 409: ['StaleProjectVersion'] } },
  get: { principal: 'catalog', path: ProjectPath, response: ProjectOut, errors: { 404: ['ProjectNotFound'] } },
} as const;

export const toProjectOut = (project: Project): z.infer<typeof ProjectOut> => ({
  ProjectGuid: project.projectGuid,
  UnitPrice: fromMinorUnits(project.unitPriceMinor),
  Version: project.version,
  LastSavedDateUtc: formatDate(project.lastSavedAt),
});

nameSchemas(requestSchemas, { ProjectInput });
nameSchemas(responseSchemas, { Project: ProjectOut });
