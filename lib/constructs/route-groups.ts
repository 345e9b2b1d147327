/**
 * The routes' share of the stack, in one nested stack per route group, so that no template nears
 * CloudFormation's quotas as routes are added (test/infra/quotas.test.ts). A group is chosen by the first
 * segment of a route's path: it owns whole subtrees of the API, so no API resource is shared between two
 * stacks, and a route never moves to another stack (which would replace its function, whose name is fixed).
 *
 * A group's stack holds the API resources of its subtrees and, per route, the method, the function with its
 * role, policy and log group, and the permission that lets API Gateway invoke it. The RestApi, its
 * deployment and stage, the authorizers and the monitoring stay in the parent stack; what a group needs of
 * them (API and root resource ids, authorizer ids, table, bucket, bus) arrives as a few parameters.
 */
import { ArnFormat, Duration, NestedStack } from 'aws-cdk-lib';
import { Integration, IntegrationType, Resource, type IResource, type RestApi } from 'aws-cdk-lib/aws-apigateway';
import { ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';
import { resourcePattern, takesApiKey, type Route } from '../../functions/routes.ts';
import type { ServiceConfig } from '../service-config.ts';
import type { Authorizers } from './authorizers.ts';
import { HandlerFunction, type DataResources } from './handler-function.ts';

/** Route groups by the first path segments they own. A route whose first segment is not here fails the synth. */
export const ROUTE_GROUPS = {
  Public: ['health', 'openapi.json'],
  Baskets: ['basket', 'baskets'],
  Catalog: ['project'],
  Checkout: ['checkout'],
  Orders: ['orders', 'order'],
  Library: ['library', 'builder'],
  Webhooks: ['webhooks'],
} as const satisfies Record<string, readonly string[]>;

export type RouteGroup = keyof typeof ROUTE_GROUPS;

const firstSegmentOf = (path: string): string => path.split('/')[1] ?? '';

export function routeGroupOf(route: Pick<Route, 'path'>): RouteGroup {
  const segment = firstSegmentOf(route.path);
  const group = (Object.keys(ROUTE_GROUPS) as RouteGroup[]).find((name) =>
    (ROUTE_GROUPS[name] as readonly string[]).includes(segment),
  );
  if (!group)
    throw new Error(
      `${route.path}: no route group owns /${segment}; add it to one in lib/constructs/route-groups.ts (docs/deploy.md, Adding a route)`,
    );
  return group;
}

export interface Endpoint {
  route: Route;
  endpoint: HandlerFunction;
}

/** Memory and timeout per route. Functions that move image bytes get more of both (memory buys CPU too). */
function tuning(route: Route): { memorySize: number; timeout: Duration } {
  // Streams the whole assembled file (up to MULTIPART_MAX_BYTES) through the MD5 meter: one full vCPU, and
  // past API Gateway's 29 s it goes on to finish the commit (docs/performance.md, resumable uploads).
  if (route.handler === 'complete-multipart-upload') return { memorySize: 1769, timeout: Duration.seconds(120) };
  if (route.grants.bucket === 'write' || route.grants.bucket === 'readwrite')
    return { memorySize: 1024, timeout: Duration.seconds(29) };
  return { memorySize: 512, timeout: Duration.seconds(10) };
}

export interface RouteGroupStackProps {
  config: ServiceConfig;
  namePrefix: string;
  routes: readonly Route[];
  restApi: RestApi;
  authorizers: Authorizers;
  data: DataResources;
  /** Environment every route's function gets. */
  environment: Record<string, string>;
}

export class RouteGroupStack extends NestedStack {
  readonly endpoints: Endpoint[];

  constructor(scope: Construct, group: RouteGroup, props: RouteGroupStackProps) {
    super(scope, group, {
      description: `photo-commerce ${props.config.stage}: the ${group} routes (/${ROUTE_GROUPS[group].join(', /')})`,
    });
    const { config, restApi } = props;
    // The subtrees' top resources hang from the API's root; everything below them is created through them.
    const topResources = new Map<string, Resource>();
    const resourceFor = (path: string): IResource => {
      const [segment, ...rest] = path.slice(1).split('/') as [string, ...string[]];
      let top = topResources.get(segment);
      if (!top) {
        top = new Resource(this, segment, { parent: restApi.root, pathPart: segment });
        topResources.set(segment, top);
      }
      return rest.length > 0 ? top.resourceForPath(rest.join('/')) : top;
    };

    this.endpoints = props.routes.map((route) => {
      const endpoint = new HandlerFunction(this, `Endpoint-${route.handler}`, {
        handler: route.handler,
        namePrefix: props.namePrefix,
        description: `${route.method} ${route.path}: ${route.summary}`,
        logRetention: config.logRetentionDays,
        environment: props.environment,
        ...tuning(route),
      });
      endpoint.grant(route.grants, props.data);
      // API Gateway may invoke the function for this method and path on the stage only. The stage is named,
      // not referenced: the stage's deployment waits for this stack's methods, so a reference would be a cycle.
      endpoint.function.addPermission('ApiPermission', {
        principal: new ServicePrincipal('apigateway.amazonaws.com'),
        sourceArn: this.formatArn({
          service: 'execute-api',
          resource: restApi.restApiId,
          arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
          resourceName: `${config.stage}/${resourcePattern(route)}`,
        }),
      });
      const authorizer = props.authorizers.for(route.credential);
      resourceFor(route.path).addMethod(
        route.method,
        new Integration({
          type: IntegrationType.AWS_PROXY,
          integrationHttpMethod: 'POST',
          uri: `arn:${this.partition}:apigateway:${this.region}:lambda:path/2015-03-31/functions/${endpoint.function.functionArn}/invocations`,
        }),
        {
          operationName: route.handler,
          ...(authorizer ? { authorizer } : {}),
          // The usage plan's per-key throttle applies where API Gateway requires the key the authorizer names.
          apiKeyRequired: takesApiKey(route),
        },
      );
      return { route, endpoint };
    });
  }
}
