/**
 * The routes in nested stacks (lib/constructs/route-groups.ts): each route's method, function, role, log group
 * and invoke permission in the template of its group, none in the root; the API's deployment waits for every
 * group and is replaced when a group's method changes, so the stage serves what the groups define.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { resourcePattern, routes } from '../../functions/routes.ts';
import { routeGroupOf } from '../../lib/constructs/route-groups.ts';
import type { CfnResource } from '../../lib/synthesized-templates.ts';
import { synthServiceStack } from './stack.ts';

let synthesized: ReturnType<typeof synthServiceStack>;
beforeAll(() => {
  synthesized = synthServiceStack();
}, 120_000);

const ofType = (resources: Record<string, CfnResource>, type: string) =>
  Object.entries(resources).filter(([, resource]) => resource.Type === type);

/** The logical id of the deployment (CDK names it after a hash of the API's methods and resources). */
const deploymentOf = (resources: Record<string, CfnResource>) => {
  const deployments = ofType(resources, 'AWS::ApiGateway::Deployment');
  expect(deployments).toHaveLength(1);
  return deployments[0]!;
};

describe('route groups', () => {
  it("puts each route's method, function, role, log group and permission in its group's template, none in the root", () => {
    const { stack, templates } = synthesized;
    for (const { route, endpoint } of stack.api.endpoints) {
      const template = templates.find(({ file }) => file.includes(`Api${routeGroupOf(route)}`));
      expect(template?.path, route.handler).toHaveLength(1);
      const types = Object.entries(template!.template.Resources)
        .filter(([logicalId]) =>
          new RegExp(`^Endpoint${route.handler.replaceAll('-', '')}(Function|Role|Logs)`).test(logicalId),
        )
        .map(([, resource]) => resource.Type)
        .sort();
      expect(types, route.handler).toEqual([
        'AWS::IAM::Policy',
        'AWS::IAM::Role',
        'AWS::Lambda::Function',
        'AWS::Lambda::Permission',
        'AWS::Logs::LogGroup',
      ]);
      expect(endpoint.function.stack).not.toBe(stack);
    }
    const root = Object.values(templates[0]!.template.Resources);
    expect(root.filter((resource) => resource.Type === 'AWS::ApiGateway::Method')).toEqual([]);
    expect(root.filter((resource) => resource.Type === 'AWS::ApiGateway::Resource')).toEqual([]);
  });

  it('lets API Gateway invoke each function for its own method and path on the stage only', () => {
    const { resources } = synthesized;
    const restApi = ofType(resources, 'AWS::ApiGateway::RestApi')[0]![0];
    for (const route of routes) {
      const permissions = ofType(resources, 'AWS::Lambda::Permission')
        .map(([, permission]) => permission.Properties!)
        .filter((permission) =>
          JSON.stringify(permission.FunctionName).includes(`"Endpoint${route.handler.replaceAll('-', '')}Function`),
        );
      expect(permissions, route.handler).toHaveLength(1);
      expect(permissions[0]).toMatchObject({ Action: 'lambda:InvokeFunction', Principal: 'apigateway.amazonaws.com' });
      const sourceArn = permissions[0]!.SourceArn['Fn::Join'][1];
      expect(sourceArn, route.handler).toContainEqual({ Ref: restApi });
      expect(sourceArn.at(-1), route.handler).toBe(`/dev/${resourcePattern(route)}`);
    }
  });

  it('deploys the stage after every group, and again when a group changes a method', () => {
    const { resources } = synthesized;
    const groupStacks = ofType(resources, 'AWS::CloudFormation::Stack').map(([logicalId]) => logicalId);
    expect(groupStacks).toHaveLength(new Set(routes.map(routeGroupOf)).size);
    const [deploymentId, deployment] = deploymentOf(resources);
    expect(deployment.DependsOn).toEqual(expect.arrayContaining(groupStacks));
    const changed = synthServiceStack({
      routes: routes.map((route) => (route.handler === 'get-health' ? { ...route, credential: 'user' } : route)),
    });
    expect(deploymentOf(changed.resources)[0]).not.toBe(deploymentId);
  }, 120_000);

  it('refuses a route whose first path segment no group owns, naming where to add it', () => {
    const stray = { ...routes[0]!, path: '/stray', handler: 'get-health' };
    expect(() => synthServiceStack({ routes: [...routes, stray] })).toThrow(
      /\/stray: no route group owns \/stray; add it to one in lib\/constructs\/route-groups.ts/,
    );
  });
});
