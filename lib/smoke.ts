/**
 * The end-to-end smoke flow, through the public interface only, against any base URL: a deployed stage or
 * `npm start`. bin/smoke.ts runs it from the command line; test/integration/smoke.test.ts runs it against
 * the local service, so the deployed API and the local one are held to the same flow.
 *
 * It creates what it needs under fresh ids (a project price, a basket, an order, library items) and
 * leaves the order side: orders cannot be deleted through the interface. The library items it claims for
 * the test user and then deletes (records and images); its artwork order it cancels, so that its held photo
 * is erased too once the hold's end reaches the sweeper.
 */
import type { ApiKeyScope } from '../functions/auth/principal.ts';
import { artworkSteps } from './smoke/artwork.ts';
import { commerceSteps } from './smoke/commerce.ts';
import { librarySteps } from './smoke/library.ts';
import { smokeSession } from './smoke/session.ts';

export interface SmokeOptions {
  /** Base URL of the API, e.g. https://abc.execute-api.eu-west-1.amazonaws.com/prod */
  url: string;
  /** A bearer token of a test user. */
  token: string;
  /** An API key of each scope: `library` (client app), `site` (checkout site), `catalog`, `fulfilment`. */
  keys: Record<ApiKeyScope, string>;
  /** A public image URL the service may fetch; without it the pull step is skipped. */
  imageUrl?: string;
  log?: (line: string) => void;
  /** The HTTP client; tests pass one that notes which route is being called. */
  fetch?: typeof fetch;
}

export interface SmokeResult {
  passed: string[];
  skipped: string[];
}

export async function runSmoke(options: SmokeOptions): Promise<SmokeResult> {
  const session = smokeSession(options);
  await commerceSteps(session);
  await librarySteps(session, options.imageUrl);
  await artworkSteps(session);
  return { passed: session.passed, skipped: session.skipped };
}
