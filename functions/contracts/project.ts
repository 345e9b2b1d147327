/** Project schemas: a price and a name, registered by the company's own systems (catalog API key). */
import * as z from 'zod/mini';
import { fromMinorUnits } from '../shared/money.ts';
import { formatDate } from '../shared/dates.ts';
import type { Project } from '../domain/project.ts';
import { MAX_ARTWORK_ITEMS } from '../domain/artwork.ts';
import {
  Guid,
  GuidOut,
  IntegerOut,
  listOf,
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

export const MAX_PROJECT_NAME_LENGTH = 200;
const NAME_EXAMPLE = 'Photo book A4, 24 pages';

/** Characters as JSON Schema's maxLength counts them, code points: a surrogate pair (an emoji) is one. */
const codePoints = (text: string): number => text.length - (text.match(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g)?.length ?? 0);

/**
 * A project's display name as sent: trimmed first (a pasted name's stray spaces), then 1 to 200 characters
 * (Unicode code points, as JSON Schema's maxLength counts them). Control characters (tab, CR, LF, ...) are
 * refused: a name is shown on one line of a page and a receipt. So are unpaired surrogates, which UTF-8
 * cannot hold (DynamoDB would store U+FFFD in their place).
 */
const ProjectNameIn = z.string().check(
  z.trim(),
  z.refine((name) => name.length > 0, 'must not be empty'),
  z.refine(
    (name) => codePoints(name) <= MAX_PROJECT_NAME_LENGTH,
    `must be at most ${MAX_PROJECT_NAME_LENGTH} characters`,
  ),
  z.refine(
    (name) => /^[^\p{Cc}\p{Cs}]*$/u.test(name),
    'must not hold control characters (tab, line breaks, ...) or unpaired surrogates',
  ),
  z.meta({
    minLength: 1,
    maxLength: MAX_PROJECT_NAME_LENGTH,
    example: NAME_EXAMPLE,
    description:
      'The name shoppers see, 1-200 characters after trimming, no control characters; omitted, the stored name stays',
  }),
);

/** A project's name as answered; null for a project registered without one. */
export const ProjectNameOut = z
  .nullable(z.string())
  .check(z.meta({ example: NAME_EXAMPLE, description: "The project's name; null when none was registered" }));

/** The library items a version prints: 1 to 200 item guids, none twice. */
const ItemGuidsIn = listOf(
  Guid,
  MAX_ARTWORK_ITEMS,
  'item',
  "The library items this version prints, in order (1-200, none twice); each must exist and not be erased. Omitted, the stored artwork stays; a version's artwork changes only with a new Version",
).check(
  z.superRefine((guids, context) => {
    const twice = guids.filter((guid, index) => guids.indexOf(guid) !== index);
    if (twice.length > 0)
      context.issues.push({
        code: 'custom',
        input: guids,
        message: `must not name an item twice (${[...new Set(twice)].join(', ')})`,
      });
  }),
);

export const ProjectInput = z.object({
  /** Optional: a PUT without it keeps the stored name (callers that register prices only never erase one). */
  Name: z.optional(ProjectNameIn),
  ItemGuids: z.optional(ItemGuidsIn),
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
  Name: ProjectNameOut,
  UnitPrice: MoneyOut,
  Version: ProjectVersionOut,
  ItemGuids: z.optional(
    z.array(GuidOut).check(z.meta({ description: 'The library items this version prints; absent when it names none' })),
  ),
  LastSavedDateUtc: WireDateOut,
});

// A contract table reads best one row per operation.
// prettier-ignore
export const projectContracts = {
  put: { principal: 'catalog', path: ProjectPath, body: ProjectInput, response: ProjectOut, errors: { 409: ['StaleProjectVersion', 'ArtworkNeedsNewVersion'], 422: ['UnknownLibraryItem'] } },
  get: { principal: 'catalog', path: ProjectPath, response: ProjectOut, errors: { 404: ['ProjectNotFound'] } },
} as const;

export const toProjectOut = (project: Project): z.infer<typeof ProjectOut> => ({
  ProjectGuid: project.projectGuid,
  Name: project.name ?? null,
  UnitPrice: fromMinorUnits(project.unitPriceMinor),
  Version: project.version,
  ...(project.itemGuids === undefined ? {} : { ItemGuids: project.itemGuids }),
  LastSavedDateUtc: formatDate(project.lastSavedAt),
});

nameSchemas(requestSchemas, { ProjectInput });
nameSchemas(responseSchemas, { Project: ProjectOut });
