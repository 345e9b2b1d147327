/**
 * Projects, as this service knows them: a price and a name the company's own systems register, with a
 * version. Pure: the store persists a project and enforces the version rule in the same write.
 */
import { conflict } from '../shared/errors.ts';

/** What a basket line takes from a project: its current price and the version that price belongs to. */
export interface ProjectPrice {
  projectGuid: string;
  unitPriceMinor: number;
  version: number;
}

export interface Project extends ProjectPrice {
  /** What the checkout site and order reads show; absent for a project registered without a name. */
  name?: string;
  /** The library items this version prints, in order (domain/artwork.ts); absent when it names none. */
  itemGuids?: string[];
  /** The name of their artwork record (artworkDigest of itemGuids); set with itemGuids. */
  artworkDigest?: string;
  lastSavedAt: number;
}

/**
 * The version rule: a project is replaced only by the same or a newer version, so a late writer cannot roll
 * a price (or a name) back; a rename needs no new version, as a price change needs none. The store checks it
 * in the write itself (`putProjectUnlessOlder`: atomic, no read first); a refused write is this conflict.
 */
export const staleProjectVersion = (project: Project) =>
  conflict(
    'StaleProjectVersion',
    `Version: project ${project.projectGuid} already has a newer version than ${project.version}.`,
  );
