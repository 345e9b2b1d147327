/**
 * How the OpenAPI document groups its operations (a tag per first path segment) and says which credential
 * each takes, in words, from the route table.
 */
import { routes, type Credential, type Route } from '../routes.ts';

/** What a credential of the route table is, in words: each operation and tag states its own. */
export const credentialText = (credential: Credential): string =>
  credential === 'none'
    ? 'no credential'
    : credential === 'user'
      ? "a user's bearer token"
      : credential === 'apiKey'
        ? 'an API key of any scope'
        : `an API key of scope \`${credential}\``;

/** By the path's first segment; in alphabetical order, as the document lists them. */
const tagList = [
  { name: 'Baskets', description: "A user's baskets and their lines.", segments: ['basket', 'baskets'] },
  {
    name: 'Checkout and orders',
    description: 'Checkouts the checkout site completes, and the orders they create.',
    segments: ['checkout', 'orders', 'order'],
  },
  {
    name: 'Library',
    description:
      "Images pushed, pulled or uploaded by client apps, product builder URLs for them, and the signed-in user's library.",
    segments: ['library'],
  },
  {
    name: 'Product builder',
    description: "What the product builder site reads: a product builder URL's items.",
    segments: ['builder'],
  },
  { name: 'Projects', description: "Project prices, registered by the company's own systems.", segments: ['project'] },
  { name: 'Service', description: 'Liveness and this document.', segments: ['health', 'openapi.json'] },
  {
    name: 'Webhooks',
    description:
      'URLs that receive signed events (Standard Webhooks); each API key manages its own, and subscribes only to the event types its scope may read.',
    segments: ['webhooks'],
  },
];

export const tagOf = (route: Route): string => {
  const segment = route.path.split('/')[1] ?? '';
  const tag = tagList.find((candidate) => candidate.segments.includes(segment));
  if (!tag) throw new Error(`no tag for ${route.path}: add its first segment to a tag`);
  return tag.name;
};

/** Each tag's description ends with the credentials of its operations, from the route table. */
export const tags = tagList.map(({ name, description }) => {
  const credentials = [...new Set(routes.filter((route) => tagOf(route) === name).map((route) => route.credential))];
  return { name, description: `${description} Credential: ${credentials.map(credentialText).join(', or ')}.` };
});
