/**
 * A file the local stack must never leave half written when it is killed: written under a temporary name,
 * then renamed over the old one (a rename is atomic), so a reader finds the old content or the new, whole.
 * No fsync: such a file has to outlive the process, not the machine (a power cut is out of scope locally,
 * as for the engine's own data).
 */
import { renameSync, writeFileSync } from 'node:fs';

/** The suffix of the temporary name; a file with it is a write that a kill interrupted. */
export const PARTIAL_SUFFIX = '.partial';

export function writeFileAtomically(path: string, text: string): void {
  writeFileSync(`${path}${PARTIAL_SUFFIX}`, text);
  renameSync(`${path}${PARTIAL_SUFFIX}`, path);
}
