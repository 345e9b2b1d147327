/**
 * The IAM check reads policies wherever the stack puts them: a function, its role and its policy in a
 * nested stack, naming the parent's table through the parameters CDK passes the nested stack, resolve to
 * the table's ARN and name as a policy in the root stack would.
 */
import { App, NestedStack, Stack } from 'aws-cdk-lib';
import { AttributeType, Table, type CfnTable } from 'aws-cdk-lib/aws-dynamodb';
import { Code, Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { expect, it } from 'vitest';
import { scopeOfStack, statementsOf, templateAccess } from '../support/iam/template-access.ts';

it('resolves a nested stack’s policy through the parameters its parent passes', () => {
  const stack = new Stack(new App(), 'Root');
  const table = new Table(stack, 'Table', { partitionKey: { name: 'PK', type: AttributeType.STRING } });
  const nested = new NestedStack(stack, 'Routes');
  const fn = new LambdaFunction(nested, 'Fn', {
    functionName: 'svc-get-thing',
    runtime: Runtime.NODEJS_24_X,
    handler: 'index.handler',
    code: Code.fromInline('export const handler = async () => {};'),
    environment: { TABLE_NAME: table.tableName },
  });
  table.grantReadData(fn);

  const access = templateAccess(scopeOfStack(stack), 'svc');
  const thing = access.functions.get('get-thing');
  const tableLogicalId = stack.getLogicalId(table.node.defaultChild as CfnTable);
  expect(thing?.environment.TABLE_NAME).toBe(tableLogicalId);
  const resources = thing!.policies.flatMap((policy) => statementsOf(policy.document)).flatMap((s) => s.Resource);
  expect(resources).toContain(`arn:aws:dynamodb:us-east-1:123456789012:table/${tableLogicalId}`);
});
